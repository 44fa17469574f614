import Foundation
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem
import QUICTransport
import TransportTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A loopback UDP relay between a QUIC client and `server`: forwards datagrams both
/// ways, drops a seeded `lossPercent` of them in each direction (a lossy path), and
/// drops everything once `silence()` is called (a peer that vanished without a word).
final class UDPRelay: @unchecked Sendable {
    let address: SocketAddress
    private let front: Socket
    private let back: Socket
    private let lock = NSLock()
    private var stopped = false
    private var silenced: UInt64?
    private var droppedCount = 0
    private let done = DispatchSemaphore(value: 0)

    /// Datagrams dropped by the loss so far (not those after `silence()`).
    var dropped: Int { lock.withLock { droppedCount } }
    /// When `silence()` was called.
    var silencedAt: UInt64? { lock.withLock { silenced } }

    init(to server: SocketAddress, lossPercent: Double = 0, seed: UInt64 = 1) throws {
        front = try Socket(family: AF_INET, type: Int32(SOCK_DGRAM.rawValue))
        try front.bind(SocketAddress(host: "127.0.0.1", port: 0))
        address = try front.localAddress()
        back = try Socket(family: AF_INET, type: Int32(SOCK_DGRAM.rawValue))
        try back.connect(server)
        for s in [front, back] { _ = fcntl(s.fd, F_SETFL, fcntl(s.fd, F_GETFL) | O_NONBLOCK) }
        Thread { [self] in run(lossPercent: lossPercent, seed: seed) }.start()
    }

    func silence() { lock.withLock { silenced = MonotonicClock.now() } }

    func stop() {
        lock.withLock { stopped = true }
        done.wait()
    }

    private func run(lossPercent: Double, seed: UInt64) {
        defer { done.signal() }
        var x = seed | 1
        func lost() -> Bool {
            guard lossPercent > 0 else { return false }
            x ^= x << 13
            x ^= x >> 7
            x ^= x << 17
            guard Double(x % 10_000) < lossPercent * 100 else { return false }
            lock.withLock { droppedCount += 1 }
            return true
        }
        var client: SocketAddress?
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !lock.withLock({ stopped }) {
            var fds = [pollfd(fd: front.fd, events: Int16(POLLIN), revents: 0), pollfd(fd: back.fd, events: Int16(POLLIN), revents: 0)]
            guard poll(&fds, 2, 50) > 0 else { continue }
            let open = lock.withLock { silenced == nil }
            while let (n, from) = try? buffer.withUnsafeMutableBytes({ try front.receiveFrom($0) }) {
                client = from ?? client
                if !open || lost() { continue }
                _ = try? buffer.withUnsafeBytes { try back.send(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            }
            while let n = try? buffer.withUnsafeMutableBytes({ try back.receive($0) }), let client {
                if !open || lost() { continue }
                _ = try? buffer.withUnsafeBytes { try front.send(UnsafeRawBufferPointer(rebasing: $0[0..<n]), to: client) }
            }
        }
    }
}

/// `cell` of `plugin` with the client's datagrams through a relay that drops a seeded
/// `lossPercent` each way; the server finished; the measurement and what was dropped.
func runThroughLossyRelay(_ plugin: QUICPlugin, _ cell: CellContext, lossPercent: Double = 5, seed: UInt64) async throws
    -> (m: TransportMeasurement, dropped: Int)
{
    let server = try await plugin.startServer(cell)
    defer { server.stop() }
    let relay = try UDPRelay(to: server.address, lossPercent: lossPercent, seed: seed)
    defer { relay.stop() }
    let m = try await withTimeout(40) { try await plugin.runClient(cell, server: relay.address) }
    try await withTimeout(10) { try await server.finish() }
    return (m, relay.dropped)
}
