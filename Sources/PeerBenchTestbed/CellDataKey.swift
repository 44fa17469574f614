import PeerBenchJSON
import PeerBenchSystem

/// The cell's data-plane key (issue 24; docs/protocol/control.md, SERVER_READY):
/// 32 random bytes `serve` draws for each cell and sends only inside the control
/// channel, which the pre-shared key authenticates and TLS 1.3 encrypts. A plugin
/// that authenticates its data plane (udp) tags what its client sends with it, so
/// its server accepts the cell's own client only. nil on loopback and emulated links.
public enum CellDataKey {
    /// Bytes in a key.
    public static let length = 32
    /// Where the runner finds the key in the server's hello (a remote testbed puts it
    /// there): the client's `CellContext.dataKey` is read from it.
    public static let helloKey = "peerbench_data_key"

    /// A fresh key (`SecureRandom`).
    public static func random() throws -> [UInt8] { try SecureRandom.bytes(length) }

    /// The key as 64 lowercase hex digits.
    public static func hex(_ key: [UInt8]) -> String { Hex.encode(key) }

    /// The key from 64 hex digits;
    /// nil for anything else.
    public static func parse(_ text: String) -> [UInt8]? { Hex.decode(text, count: length) }

    /// The key a server's hello carries (`helloKey`), if any.
    public static func from(hello: JSONObject) -> [UInt8]? {
        hello[helloKey]?.stringValue.flatMap(parse)
    }
}
