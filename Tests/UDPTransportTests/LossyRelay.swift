import Foundation
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem
import Synchronization
import TransportTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A UDP relay on loopback between the plugin's client and server that drops the
/// datagrams a test chooses, either way: loss without needing the link emulator.
final class LossyRelay: Sendable {
    let address: SocketAddress
    private let front: Socket  // faces the client
    private let back: Socket  // connected to the server
    private struct State {
        var client: SocketAddress?
        var dropped: [UInt8: Int] = [:]
        var droppedReplies: [UInt8: Int] = [:]
    }
    private let state = Mutex(State())

    /// `drop(type, sequence, occurrence)` decides per client datagram, `dropReply` per
    /// server datagram; occurrence counts datagrams of that type and direction so far
    /// (0-based).
    init(
        server: SocketAddress, drop: @escaping @Sendable (UInt8, UInt64, Int) -> Bool,
        dropReply: @escaping @Sendable (UInt8, UInt64, Int) -> Bool = { _, _, _ in false }
    ) throws {
        front = try Socket(family: AF_INET, type: Int32(SOCK_DGRAM.rawValue))
        try Self.holdBursts(front)
        try front.bind(SocketAddress(host: "127.0.0.1", port: 0))
        address = try front.localAddress()
        back = try Socket(family: AF_INET, type: Int32(SOCK_DGRAM.rawValue))
        try Self.holdBursts(back)
        try back.connect(server)
        try front.setReceiveTimeout(nanoseconds: 50_000_000)
        try back.setReceiveTimeout(nanoseconds: 50_000_000)
        let (front, back) = (front, back)
        Thread { [self] in
            var buf = [UInt8](repeating: 0, count: 65_536)
            var seen: [UInt8: Int] = [:]
            while true {
                let r: (Int, SocketAddress?)?
                do { r = try buf.withUnsafeMutableBytes { try front.receiveFrom($0) } } catch { return }
                guard let (n, from) = r else { continue }
                if n == 0 { return }
                state.withLock { $0.client = from }
                let (type, seq) = Self.typeAndSequence(buf)
                let k = seen[type, default: 0]
                seen[type] = k + 1
                if drop(type, seq, k) {
                    state.withLock { $0.dropped[type, default: 0] += 1 }
                    continue
                }
                _ = try? buf.withUnsafeBytes { try back.send(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            }
        }.start()
        Thread { [self] in
            var buf = [UInt8](repeating: 0, count: 65_536)
            var seen: [UInt8: Int] = [:]
            while true {
                let r: Int?
                do { r = try buf.withUnsafeMutableBytes { try back.receive($0) } } catch { return }
                guard let n = r else { continue }
                if n == 0 { return }
                let (type, seq) = Self.typeAndSequence(buf)
                let k = seen[type, default: 0]
                seen[type] = k + 1
                if dropReply(type, seq, k) {
                    state.withLock { $0.droppedReplies[type, default: 0] += 1 }
                    continue
                }
                if let to = state.withLock({ $0.client }) {
                    _ = try? buf.withUnsafeBytes { try front.send(UnsafeRawBufferPointer(rebasing: $0[0..<n]), to: to) }
                }
            }
        }.start()
    }

    /// 8 MiB of receive buffer either way, above net.core.rmem_max (SO_RCVBUFFORCE, as
    /// root; SO_RCVBUF, capped, otherwise): with the default 208 KiB a loaded host that
    /// stalls the relay's thread for 17 ms overflowed it with a 100 Mbit/s download
    /// (356 of 360 DATA arrived: loss the test did not choose).
    private static func holdBursts(_ socket: Socket) throws {
        if (try? socket.setOption(SOL_SOCKET, SO_RCVBUFFORCE, Int32(8 << 20), "SO_RCVBUFFORCE")) == nil {
            try socket.setOption(SOL_SOCKET, SO_RCVBUF, Int32(8 << 20), "SO_RCVBUF")
        }
    }

    func droppedCount(type: UInt8) -> Int { state.withLock { $0.dropped[type, default: 0] } }
    func droppedReplyCount(type: UInt8) -> Int { state.withLock { $0.droppedReplies[type, default: 0] } }

    private static func typeAndSequence(_ buf: [UInt8]) -> (UInt8, UInt64) {
        (buf[0], buf.withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) })
    }

    func close() {
        front.shutdown()
        back.shutdown()
    }
}
