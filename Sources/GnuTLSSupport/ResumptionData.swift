/// A client's saved TLS session (`gnutls_session_get_data2`): in TLS 1.3 the latest
/// session ticket with the secrets to resume it, and whether the server allows early
/// data with it. Opaque bytes, handed back to `GnuTLSSession.resume(with:)` on the
/// next connection to the same server. Secret: kept in memory only, never recorded.
public struct ResumptionData: Sendable, Equatable {
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }
}

extension ResumptionData: CustomStringConvertible {
    /// Its size only: the bytes are secret.
    public var description: String { "ResumptionData(\(bytes.count) bytes)" }
}
