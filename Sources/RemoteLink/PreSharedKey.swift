import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem

/// The 256-bit secret both hosts hold, and the identity the client names in its TLS
/// ClientHello (sent in clear: never a secret, by default just `peerbench`).
///
/// The key file (`peerbench psk new FILE`) is one line of text:
///
///     peerbench-psk/1 IDENTITY HEX64
///
/// IDENTITY is 1–64 characters from `A-Z a-z 0-9 . _ -`; HEX64 the key as 64 hex
/// digits. Blank lines and lines starting with `#` are ignored. The file must not be
/// readable or writable by group or others. docs/protocol/control.md has the details.
public struct PreSharedKey: Sendable, Equatable, CustomStringConvertible {
    /// The file format's first word; a later format gets a new one.
    static let formatTag = "peerbench-psk/1"
    static let keyBytes = 32
    public static let defaultIdentity = "peerbench"
    static let maxIdentityLength = 64

    /// The name of the key, sent in clear in the TLS handshake.
    public let identity: String
    /// The secret.
    public let bytes: [UInt8]

    /// A key from its parts; throws when the identity or the length is not allowed.
    public init(identity: String, bytes: [UInt8]) throws {
        if let problem = Self.identityProblem(identity) { throw InputError(problem) }
        guard bytes.count == Self.keyBytes else { throw InputError("a pre-shared key has \(Self.keyBytes) bytes, not \(bytes.count)") }
        self.identity = identity
        self.bytes = bytes
    }

    /// A fresh key (`SecureRandom`).
    public static func generate(identity: String = defaultIdentity) throws -> PreSharedKey {
        try PreSharedKey(identity: identity, bytes: SecureRandom.bytes(keyBytes))
    }

    /// The key as 64 lowercase hex digits (what GnuTLS's `GNUTLS_PSK_KEY_HEX` takes).
    public var hex: String { Hex.encode(bytes) }

    /// The key file's content.
    var fileText: String { "\(Self.formatTag) \(identity) \(hex)\n" }

    /// Only the identity: a key must never end up in a log line.
    public var description: String { "pre-shared key \"\(identity)\"" }

    /// Why `identity` cannot name a key, or nil when it can.
    public static func identityProblem(_ identity: String) -> String? {
        if identity.isEmpty { return "the identity is empty" }
        if identity.utf8.count > maxIdentityLength { return "the identity is longer than \(maxIdentityLength) characters" }
        let allowed = identity.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "." || $0 == "_" || $0 == "-")
        }
        return allowed ? nil : "the identity \"\(identity)\" may only hold letters, digits, '.', '_' and '-'"
    }
}
