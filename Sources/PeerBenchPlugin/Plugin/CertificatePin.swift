import PeerBenchJSON
import PeerBenchSystem

/// The data plane's own identity over a remote link (issue 24, finding 4): `serve`
/// makes a fresh key and self-signed certificate when it starts, presents it in every
/// quic and tls cell, and announces the certificate's SHA-256 in SERVER_READY, inside
/// the control channel that the pre-shared key authenticates. The client checks the
/// certificate its handshake received against that digest instead of the bundled CA
/// (whose key is public) and a name, so no one else on the link can stand in for the
/// data plane, and no `serverName` is needed. nil on loopback and emulated links,
/// where the bundled CA still applies.
public enum CertificatePin {
    /// Where the runner finds the digest in the server's hello (a remote testbed puts
    /// it there); the client's `CellContext.certificatePin` is read from it.
    public static let helloKey = "peerbench_certificate_sha256"
    /// Bytes in a digest.
    public static let length = 32

    /// The digest a server's hello carries, if any (64 hex digits).
    public static func from(hello: JSONObject) -> [UInt8]? {
        hello[helloKey]?.stringValue.flatMap(parse)
    }

    /// A SHA-256 digest from 64 hex digits; nil for anything else.
    public static func parse(_ text: String) -> [UInt8]? { Hex.decode(text, count: length) }

    /// The digest as 64 lowercase hex digits.
    public static func hex(_ digest: [UInt8]) -> String { Hex.encode(digest) }

    /// Throws unless `presented` (the SHA-256 of the certificate the handshake received;
    /// nil when there was none) is `pinned`. `who` names the client (`tls client`).
    public static func check(presented: [UInt8]?, pinned: [UInt8], who: String) throws {
        guard let presented else {
            throw TransportError("\(who): the server presented no certificate; serve announced one (sha256 \(hex(pinned)))")
        }
        guard presented == pinned else {
            throw TransportError(
                "\(who): the server's certificate (sha256 \(hex(presented))) is not the one serve announced "
                    + "(sha256 \(hex(pinned))): something else on the link answered for the data plane")
        }
    }
}
