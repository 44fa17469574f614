import Foundation
#if canImport(Glibc)
import Glibc
#endif
import PeerBenchCore
import QUICTransport
import Testing
import TransportTestSupport

/// `idleTimeoutSeconds` as the dead-peer timeout: read only when given, and on
/// loopback a path that goes silent ends the connection by idle timeout on time.
@Suite(.serialized, .timeLimit(.minutes(2))) struct QUICIdleTimeoutTests {
    @Test func givenTimeoutIsTheDeadPeerTimeout() throws {
        #expect(try makePlugin(["idleTimeoutSeconds": 2]).deadPeerTimeoutSeconds == 2)
        #expect(try makePlugin(["idleTimeoutSeconds": 0.5]).deadPeerTimeoutSeconds == 0.5)
    }

    @Test func absentTimeoutIsNoDeadPeerTimeout() throws {
        // The 30 s default still closes an idle connection, but it is nobody's setting.
        #expect(try makePlugin().deadPeerTimeoutSeconds == nil)
    }

    @Test func badTimeoutNamesItsPath() throws {
        let reader = try PluginOptions(["idleTimeoutSeconds": 0.01] as JSONValue, path: JSONPath.root.key("transports").index(1).key("options"))
        let error = #expect(throws: InputError.self) { _ = try QUICPlugin(options: reader) }
        #expect(error?.problems.first?.path == "$.transports[1].options.idleTimeoutSeconds")
        let text = try PluginOptions(["idleTimeoutSeconds": "soon"] as JSONValue, path: JSONPath.root.key("transports").index(1).key("options"))
        let e2 = #expect(throws: InputError.self) { _ = try QUICPlugin(options: text) }
        #expect(e2?.problems.first?.path == "$.transports[1].options.idleTimeoutSeconds")
    }

    @Test func silentPathEndsTheConnectionAtTheIdleTimeout() async throws {
        let plugin = try makePlugin(["idleTimeoutSeconds": 1])
        let cell = CellContext.loopback(payload: Payload(count: 1_000_000, size: 16384), rttProbes: 2, timeoutSeconds: 30)
        let server = try await plugin.startServer(cell)
        defer { server.stop() }
        let relay = try SilencingRelay(to: server.address)
        defer { relay.stop() }
        after(milliseconds: 800) { relay.silence() }
        let error = await #expect(throws: (any Error).self) {
            _ = try await withTimeout(20) { try await plugin.runClient(cell, server: relay.address) }
        }
        let detect = Double(MonotonicClock.now() - (relay.silencedAt ?? 0)) / 1e6
        #expect("\(error.map { "\($0)" } ?? "")".contains("idle for 1 s"), "\(String(describing: error))")
        // ngtcp2 waits max(idle timeout, 3 PTO) from the last packet in; on loopback 3 PTO is small.
        #expect(detect >= 900 && detect <= 2_500, "closed \(detect) ms after the path went silent")
    }
}

/// A loopback UDP relay that forwards both ways until `silence()`, then drops
/// everything: a peer that vanished without a word.
final class SilencingRelay: @unchecked Sendable {
    let address: SocketAddress
    private let front: Socket
    private let back: Socket
    private let lock = NSLock()
    private var stopped = false
    private var silenced: UInt64?
    private let done = DispatchSemaphore(value: 0)

    var silencedAt: UInt64? { lock.withLock { silenced } }

    init(to server: SocketAddress) throws {
        front = try Socket(family: AF_INET, type: Int32(SOCK_DGRAM.rawValue))
        try front.bind(SocketAddress(host: "127.0.0.1", port: 0))
        address = try front.localAddress()
        back = try Socket(family: AF_INET, type: Int32(SOCK_DGRAM.rawValue))
        try back.connect(server)
        for s in [front, back] { _ = fcntl(s.fd, F_SETFL, fcntl(s.fd, F_GETFL) | O_NONBLOCK) }
        Thread { [self] in run() }.start()
    }

    func silence() { lock.withLock { silenced = MonotonicClock.now() } }

    func stop() {
        lock.withLock { stopped = true }
        done.wait()
    }

    private func run() {
        defer { done.signal() }
        var client: SocketAddress?
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !lock.withLock({ stopped }) {
            var fds = [pollfd(fd: front.fd, events: Int16(POLLIN), revents: 0), pollfd(fd: back.fd, events: Int16(POLLIN), revents: 0)]
            guard poll(&fds, 2, 50) > 0 else { continue }
            let open = lock.withLock { silenced == nil }
            while let (n, from) = try? buffer.withUnsafeMutableBytes({ try front.receiveFrom($0) }) {
                client = from ?? client
                if open { _ = try? buffer.withUnsafeBytes { try back.send(UnsafeRawBufferPointer(rebasing: $0[0..<n])) } }
            }
            while let n = try? buffer.withUnsafeMutableBytes({ try back.receive($0) }), let client {
                if open { _ = try? buffer.withUnsafeBytes { try front.send(UnsafeRawBufferPointer(rebasing: $0[0..<n]), to: client) } }
            }
        }
    }
}
