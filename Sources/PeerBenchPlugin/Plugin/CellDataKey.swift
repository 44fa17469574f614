#if canImport(Glibc)
import Glibc
#endif

/// The cell's data-plane key (issue 24; docs/protocol/control.md, SERVER_READY):
/// 32 random bytes `serve` draws for each cell and sends only inside the control
/// channel, which the pre-shared key authenticates and TLS 1.3 encrypts. A plugin
/// that authenticates its data plane (udp) tags what its client sends with it, so
/// its server accepts the cell's own client only. nil on loopback and emulated links.
public enum CellDataKey {
    public static let length = 32
    /// Where the runner finds the key in the server's hello (a remote testbed puts it
    /// there): the client's `CellContext.dataKey` is read from it.
    public static let helloKey = "peerbench_data_key"

    /// A fresh key from the kernel's CSPRNG (getentropy).
    public static func random() throws -> [UInt8] {
        var key = [UInt8](repeating: 0, count: length)
        guard key.withUnsafeMutableBytes({ getentropy($0.baseAddress, $0.count) }) == 0 else {
            throw SystemError("getentropy", errno: errno)
        }
        return key
    }

    /// The key as 64 lowercase hex digits.
    public static func hex(_ key: [UInt8]) -> String {
        key.map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    /// The key (or any 32 bytes: a SHA-256 digest, `CertificatePin`) from 64 hex digits;
    /// nil for anything else.
    public static func parse(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count == 2 * length else { return nil }
        var key: [UInt8] = []
        key.reserveCapacity(length)
        for i in stride(from: 0, to: digits.count, by: 2) {
            guard let b = UInt8(String(decoding: digits[i..<i + 2], as: UTF8.self), radix: 16) else { return nil }
            key.append(b)
        }
        return key
    }

    /// The key a server's hello carries (`helloKey`), if any.
    public static func from(hello: JSONObject) -> [UInt8]? {
        hello[helloKey]?.stringValue.flatMap(parse)
    }
}
