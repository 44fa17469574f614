internal import CGnuTLS

/// The GnuTLS library itself.
public enum GnuTLSLibrary {
    /// The version linked at run time, for a run's manifest.
    public static var version: String { gnutls_check_version(nil).map { String(cString: $0) } ?? "unknown" }
}
