import GnuTLSSupport
import PeerBenchSystem
import Testing

/// What GnuTLSSupport offers besides sessions: SHA-256, HMAC-SHA256, alert names. Each
/// is checked against its specification's own test vectors, and the alert names against
/// the words the quic plugin wrote out itself before issue 40 moved them here.
@Suite struct CryptoPrimitivesTests {
    /// FIPS 180-4's example "abc".
    @Test func sha256OfAbc() throws {
        let digest = try SHA256.digest(Array("abc".utf8))
        #expect(Hex.encode(digest) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    /// RFC 4231, test case 2.
    @Test func hmacSHA256OfRFC4231Case2() {
        let hmac = HMACSHA256(key: Array("Jefe".utf8))
        let message = Array("what do ya want for nothing?".utf8)
        var mac = [UInt8](repeating: 0, count: HMACSHA256.byteCount)
        let ok = message.withUnsafeBytes { m in
            mac.withUnsafeMutableBytes { hmac.authenticate(m.baseAddress!, count: m.count, into: $0.baseAddress!) }
        }
        #expect(ok)
        #expect(Hex.encode(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    /// The RFC 8446 names the quic plugin's error messages carry ("TLS alert 42 bad certificate").
    @Test func alertSpecNamesAreTheRFCWords() {
        let expected: [UInt8: String] = [
            0: "close notify", 10: "unexpected message", 20: "bad record MAC", 40: "handshake failure",
            42: "bad certificate", 43: "unsupported certificate", 44: "certificate revoked",
            45: "certificate expired", 46: "certificate unknown", 47: "illegal parameter", 48: "unknown CA",
            50: "decode error", 51: "decrypt error", 70: "protocol version", 80: "internal error",
            109: "missing extension", 110: "unsupported extension", 112: "unrecognized name",
            115: "unknown PSK identity", 116: "certificate required", 120: "no application protocol",
        ]
        for (number, words) in expected { #expect(GnuTLSAlert(number).specName == words, "alert \(number)") }
        #expect(GnuTLSAlert(3).specName == "unknown alert")
        #expect(GnuTLSAlert.decryptError.name == "Decrypt error")
    }
}
