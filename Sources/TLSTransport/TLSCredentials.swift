import GnuTLSSupport
import PeerBenchPlugin

/// The credentials one side of a cell uses, from the plugin's options: X.509 (the
/// bundled test CA and server identity by default) or a TLS 1.3 pre-shared key, each
/// with its priorities.
enum TLSCredentials {
    /// TLS 1.3 only; with a PSK, the (EC)DHE-PSK and plain PSK key exchanges.
    static let certificatePriority = "NORMAL:-VERS-ALL:+VERS-TLS1.3"
    static let pskPriority = "NORMAL:-VERS-ALL:+VERS-TLS1.3:+ECDHE-PSK:+PSK"

    /// Client: trust `files.ca` (certificate mode) or present `pskIdentity` + key (PSK mode).
    static func client(_ options: TLSOptions, files: TLSFiles) throws -> GnuTLSCredentials {
        do {
            if let key = options.psk {
                return try GnuTLSCredentials(pskIdentity: options.pskIdentity, key: key.bytes, priority: pskPriority)
            }
            return try GnuTLSCredentials(trusting: files.ca, priority: certificatePriority)
        } catch {
            throw TransportError("tls: \(error)")
        }
    }

    /// Server: present `files.cert` / `files.key` (certificate mode) or accept the PSK,
    /// whatever identity the client names.
    static func server(_ options: TLSOptions, files: TLSFiles) throws -> GnuTLSCredentials {
        do {
            if let key = options.psk {
                return try GnuTLSCredentials(pskServerKey: key.bytes, identity: nil, priority: pskPriority)
            }
            return try GnuTLSCredentials(trusting: nil, certificateFile: files.cert, keyFile: files.key, priority: certificatePriority)
        } catch {
            throw TransportError("tls: \(error)")
        }
    }
}
