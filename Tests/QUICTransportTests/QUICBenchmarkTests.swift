import Foundation
import PeerBenchCore
import QUICTransport
import Testing

/// Figures for docs/PERFORMANCE.md (QUIC section), printed as `BENCH name value unit` lines.
/// Off by default (they take time and want a release build): scripts/bench-quic.sh
/// runs them with PEERBENCH_QUIC_BENCH set to `all` or to one benchmark's name.
@Suite(.serialized) struct QUICBenchmarkTests {
    static let selection = ProcessInfo.processInfo.environment["PEERBENCH_QUIC_BENCH"]
    static func enabled(_ name: String) -> Bool { selection == "all" || selection == name }

    func cell(_ payload: Payload?, probes: Int) async throws -> TransportMeasurement {
        let plugin = try QUICPlugin(options: PluginOptions(JSONValue?.none, path: .root))
        let cell = loopbackCell(payload: payload, probes: probes, timeoutSeconds: 120)
        let server = try await plugin.startServer(cell)
        let m = try await plugin.runClient(cell, server: server.address)
        try await server.finish()
        return m
    }

    func streamsCell(_ payload: Payload, mode: String) async throws -> TransportMeasurement {
        let reader = try PluginOptions(.object(JSONObject(["streams": .string(mode)])), path: .root)
        let plugin = try QUICPlugin(options: reader)
        let cell = loopbackCell(payload: payload, probes: 0, timeoutSeconds: 300)
        let server = try await plugin.startServer(cell)
        let m = try await plugin.runClient(cell, server: server.address)
        try await server.finish()
        return m
    }

    static func report(_ name: String, _ value: Double, _ unit: String) {
        print("BENCH \(name) \(String(format: "%.3f", value)) \(unit)")
        fflush(nil)
    }

    @Test(.enabled(if: enabled("handshake"))) func handshake() async throws {
        var samples: [UInt64] = []
        for _ in 0..<200 { samples.append(try await cell(nil, probes: 0).connectNanos!) }
        samples.sort()
        Self.report("quic_handshake_median_ms", Double(samples[samples.count / 2]) / 1e6, "ms")
        Self.report("quic_handshake_p90_ms", Double(samples[samples.count * 9 / 10]) / 1e6, "ms")
    }

    /// One 100 MiB one-stream transfer: scripts/bench-quic.sh interleaves these with
    /// the reference tools, so a burst of load on the machine hits every side alike.
    @Test(.enabled(if: selection == "bulk1")) func bulkOnce() async throws {
        let m = try await cell(Payload(count: 6400, size: 16384), probes: 10)
        #expect(m.delivery?.receivedBytes == 6400 * 16384)
        Self.report("quic_bulk_single_MBps", Double(m.delivery!.receivedBytes) / m.bulkNanos!.seconds / 1e6, "MB/s")
        // Diagnostics: bytes on the wire per payload byte (retransmissions show here) and the final window.
        let q = m.extra["quic"]?.objectValue ?? JSONObject()
        Self.report("quic_bulk_wire_per_payload", Double(q["udp_bytes_sent"]?.intValue ?? 0) / Double(6400 * 16384), "ratio")
        Self.report("quic_bulk_cwnd_KB", Double(q["cwnd_bytes"]?.intValue ?? 0) / 1024, "KB")
    }

    @Test(.enabled(if: selection == "perMessage")) func bulkPerMessage() async throws {
        let pm = try await streamsCell(Payload(count: 6400, size: 16384), mode: "perMessage")
        Self.report("quic_bulk_perMessage_MBps", Double(pm.delivery!.receivedBytes) / pm.bulkNanos!.seconds / 1e6, "MB/s")
    }

    @Test(.enabled(if: enabled("bulk"))) func bulk() async throws {
        // 100 MiB in 16 KiB messages on one stream, best of three runs.
        var best = 0.0
        for _ in 0..<3 {
            let m = try await cell(Payload(count: 6400, size: 16384), probes: 10)
            #expect(m.delivery?.receivedBytes == 6400 * 16384)
            best = max(best, Double(m.delivery!.receivedBytes) / m.bulkNanos!.seconds / 1e6)
        }
        Self.report("quic_bulk_single_MBps", best, "MB/s")
        let pm = try await streamsCell(Payload(count: 6400, size: 16384), mode: "perMessage")
        Self.report("quic_bulk_perMessage_MBps", Double(pm.delivery!.receivedBytes) / pm.bulkNanos!.seconds / 1e6, "MB/s")
    }

    @Test(.enabled(if: enabled("memory"))) func memory() async throws {
        // 100 000 x 16 384 bytes (1.6 GB) must not be buffered: peak RSS of this process.
        let m = try await cell(Payload(count: 100_000, size: 16384), probes: 0)
        #expect(m.delivery?.receivedBytes == 100_000 * 16384)
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        Self.report("quic_100000x16384_MBps", Double(m.delivery!.receivedBytes) / m.bulkNanos!.seconds / 1e6, "MB/s")
        Self.report("quic_100000x16384_peak_rss_MB", Double(usage.ru_maxrss) / 1024, "MB")
        #expect(usage.ru_maxrss < 100 * 1024)
    }
}
