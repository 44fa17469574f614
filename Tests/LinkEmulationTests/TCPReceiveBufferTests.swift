import Foundation
import PeerBenchJSON
import PeerBenchPlugin
import TCPTransport
import Testing

@testable import LinkEmulation

/// tcp's `receiveBufferBytes`: a stack setting (SO_RCVBUF) that holds TCP below the
/// link's rate, as the phones' TCP was held below what their link carried (docs/FIELD-STUDY.md).
@Suite(.serialized)
struct TCPReceiveBufferTests {
    static let at = JSONPath.root.key("transports").index(0).key("options")

    @Test("written, it is an effective option; absent, it stays out of them (and out of cell ids); out of range, named by path")
    func options() throws {
        let written = try PluginOptions(["receiveBufferBytes": 131_072], path: Self.at)
        #expect(try TCPOptions(written).receiveBufferBytes == 131_072)
        #expect(written.effective["receiveBufferBytes"] == 131_072)
        let absent = try PluginOptions([:], path: Self.at)
        #expect(try TCPOptions(absent).receiveBufferBytes == nil)
        #expect(absent.effective["receiveBufferBytes"] == nil)
        let bad = try PluginOptions(["receiveBufferBytes": 100], path: Self.at)
        #expect(throws: InputError.self) { try TCPOptions(bad) }
    }

    @Test(
        "over 20 ms each way, a 64 KiB receive buffer caps an upload near window / RTT; autotuning does not",
        .enabled(if: EmulatedTestbed.hasNetAdmin, "needs CAP_NET_ADMIN: run the tests as root"))
    func capsTheWindow() async throws {
        let testbed = try EmulatedTestbed()
        defer { testbed.shutdownNow() }
        func upload(_ options: TCPOptions) async throws -> Double {
            let endpoints = try testbed.configure(EmulatorParameters(delayNanos: 20_000_000, rateBitsPerSecond: 400e6, mtu: 1_500), seed: 1)
            var cell = CellContext.loopback(payload: Payload(count: 4_000, size: 4_096), rttProbes: 0, timeoutSeconds: 60, environment: "lab")
            cell.client = endpoints.client
            cell.server = endpoints.server
            let plugin = TCPPlugin(options)
            let server = try await plugin.startServer(cell)
            let m = try await plugin.runClient(cell, server: server.address)
            try await server.finish()
            let bytes = try #require(m.delivery).receivedBytes, nanos = try #require(m.bulkNanos)
            return Double(bytes) * 8 / Double(nanos) * 1e3
        }
        var capped = TCPOptions()
        capped.receiveBufferBytes = 65_536
        let small = try await upload(capped)
        let tuned = try await upload(TCPOptions())
        // Linux doubles SO_RCVBUF and offers at most the whole 128 KiB as window: at most
        // 128 KiB per 40 ms round trip, 26 Mbit/s (a ceiling the sender cannot beat).
        #expect(small <= 27, "capped upload \(small) Mbit/s")
        #expect(tuned >= 2 * small, "autotuned \(tuned) Mbit/s against \(small) capped")
    }
}
