import PeerBenchPlugin
import PeerBenchStreams
import PeerBenchSystem

/// The TCP plugin's HELLO (docs/protocol/tcp.md): the framing itself is Core's
/// `StreamFraming`; this is the plugin's own greeting on top of it.
enum TCPHello {
    /// HELLO body: "PBTC", then protocol version (u16) and flags (u16, zero).
    static let magic: [UInt8] = Array("PBTC".utf8)
    static let version: UInt16 = 2

    static let greeting = StreamGreeting(frame: frame(), name: "PeerBench TCP version \(version)", accepts: isHello)

    static func frame() -> [UInt8] {
        var frame = [UInt8](repeating: 0, count: StreamFraming.headerSize)
        frame.withUnsafeMutableBytes { StreamFraming.writeHeader(.hello, bodyLength: 8, to: $0.baseAddress!) }
        return frame + magic + version.bigEndianBytes + UInt16(0).bigEndianBytes
    }

    /// Whether a HELLO body names this protocol and version.
    @Sendable static func isHello(_ body: UnsafeRawBufferPointer) -> Bool {
        body.count == 8 && Array(body.prefix(4)) == magic && body.readBE(UInt16.self, at: 4) == version
    }
}
