import Foundation
import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem
import QUICTransport
import Testing
import TransportTestSupport

#if canImport(Glibc)
    import Glibc
#endif

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
        let relay = try UDPRelay(to: server.address)
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
