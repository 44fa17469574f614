internal import CGnuTLS

/// HMAC-SHA256 (RFC 2104) under one key, by GnuTLS: the udp plugin's datagram tags.
public struct HMACSHA256: Sendable {
    /// A MAC's length in bytes.
    public static let byteCount = 32
    /// The secret.
    public let key: [UInt8]

    /// MACs under `key`.
    public init(key: [UInt8]) { self.key = key }

    /// Writes the `byteCount`-byte MAC of the `count` bytes at `message` to `mac`;
    /// false when GnuTLS fails (HMAC-SHA256 is always there), and `mac` means nothing.
    public func authenticate(_ message: UnsafeRawPointer, count: Int, into mac: UnsafeMutableRawPointer) -> Bool {
        key.withUnsafeBytes { k in gnutls_hmac_fast(GNUTLS_MAC_SHA256, k.baseAddress, k.count, message, count, mac) } == 0
    }
}
