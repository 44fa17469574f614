import Foundation
import PeerBenchJSON
import PeerBenchPlugin
import QUICTransport

// Figures of the QUIC plugin on loopback for docs/PERFORMANCE.md (QUIC section),
// printed as `BENCH name value unit` lines; scripts/bench-quic.sh runs it in a
// release build next to the reference tools.
//
//   quic-bench handshake     median and p90 of 200 handshakes
//   quic-bench bulk1         one 100 MiB transfer on one stream (+ wire overhead, final cwnd)
//   quic-bench bulk          the same, best of three, then one with a stream per message
//   quic-bench perMessage    one 100 MiB transfer with a stream per message
//   quic-bench memory        100 000 x 16 384 B (1.6 GB): goodput and this process's peak RSS
//
// Only 127.0.0.1 is used. Exit status 1 when a transfer does not deliver every byte
// or the memory check exceeds its limit, so a broken figure is never printed as one.
#if canImport(Glibc)
    import Glibc
#endif

/// The peak RSS the 1.6 GB transfer may reach (it must not buffer the payload).
let memoryLimitMB = 100.0

func plugin(streams: String) throws -> QUICPlugin {
    let reader = try PluginOptions(.object(JSONObject(["streams": .string(streams)])), path: .root)
    let p = try QUICPlugin(options: reader)
    try reader.finish()
    return p
}

/// One loopback cell through the plugin's public API, server finished too.
func cell(_ payload: Payload?, probes: Int, streams: String = "single", timeout: Double = 300) async throws -> TransportMeasurement {
    let p = try plugin(streams: streams)
    let context = CellContext.loopback(payload: payload, rttProbes: probes, timeoutSeconds: timeout)
    let server = try await p.startServer(context)
    do {
        let m = try await p.runClient(context, server: server.address)
        try await server.finish()
        return m
    } catch {
        server.stop()
        throw error
    }
}

func report(_ name: String, _ value: Double, _ unit: String) {
    print("BENCH \(name) \(String(format: "%.3f", value)) \(unit)")
    fflush(nil)
}

struct Incomplete: Error, CustomStringConvertible {
    var description: String
}

/// Goodput of a bulk transfer, after checking that every byte arrived.
func goodput(_ m: TransportMeasurement, bytes: Int) throws -> Double {
    guard let d = m.delivery, d.receivedBytes == bytes, let nanos = m.bulkNanos, nanos > 0 else {
        throw Incomplete(description: "transfer incomplete: \(String(describing: m.delivery)) of \(bytes) bytes")
    }
    return Double(bytes) / nanos.seconds / 1e6
}

let hundredMiB = Payload(count: 6400, size: 16384)

func handshake() async throws {
    var samples: [UInt64] = []
    for _ in 0..<200 {
        guard let n = try await cell(nil, probes: 0).connectNanos else { throw Incomplete(description: "no connect time") }
        samples.append(n)
    }
    samples.sort()
    report("quic_handshake_median_ms", Double(samples[samples.count / 2]) / 1e6, "ms")
    report("quic_handshake_p90_ms", Double(samples[samples.count * 9 / 10]) / 1e6, "ms")
}

func bulkOnce() async throws {
    let m = try await cell(hundredMiB, probes: 10)
    report("quic_bulk_single_MBps", try goodput(m, bytes: 6400 * 16384), "MB/s")
    // Diagnostics: bytes on the wire per payload byte (retransmissions show here) and the final window.
    let q = m.extra["quic"]?.objectValue ?? JSONObject()
    report("quic_bulk_wire_per_payload", Double(q["udp_bytes_sent"]?.intValue ?? 0) / Double(6400 * 16384), "ratio")
    report("quic_bulk_cwnd_KB", Double(q["cwnd_bytes"]?.intValue ?? 0) / 1024, "KB")
}

func perMessage() async throws {
    let m = try await cell(hundredMiB, probes: 0, streams: "perMessage")
    report("quic_bulk_perMessage_MBps", try goodput(m, bytes: 6400 * 16384), "MB/s")
}

func bulkBestOfThree() async throws {
    var best = 0.0
    for _ in 0..<3 { best = max(best, try goodput(try await cell(hundredMiB, probes: 10), bytes: 6400 * 16384)) }
    report("quic_bulk_single_MBps", best, "MB/s")
    try await perMessage()
}

func memory() async throws {
    let m = try await cell(Payload(count: 100_000, size: 16384), probes: 0)
    let rate = try goodput(m, bytes: 100_000 * 16384)
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let peak = Double(usage.ru_maxrss) / 1024
    report("quic_100000x16384_MBps", rate, "MB/s")
    report("quic_100000x16384_peak_rss_MB", peak, "MB")
    if peak >= memoryLimitMB { throw Incomplete(description: "peak RSS \(peak) MB is over the \(memoryLimitMB) MB limit") }
}

let benchmarks: [String: () async throws -> Void] = [
    "handshake": handshake, "bulk1": bulkOnce, "bulk": bulkBestOfThree, "perMessage": perMessage, "memory": memory,
]
let arguments = Array(CommandLine.arguments.dropFirst())
guard let name = arguments.first, let run = benchmarks[name], arguments.count == 1 else {
    FileHandle.standardError.write(Data("usage: quic-bench \(benchmarks.keys.sorted().joined(separator: "|"))\n".utf8))
    exit(2)
}
do {
    try await run()
} catch {
    FileHandle.standardError.write(Data("quic-bench \(name): \(error)\n".utf8))
    exit(1)
}
