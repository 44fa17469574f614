import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchTestbed
import Testing

/// Workloads for the plugin tests (docs/WORKLOADS.md), read by the matrix's own parser,
/// and one cell of any of them run against a plugin's real server on loopback.
public enum WorkloadCells {
    /// `json` (one `workloads` entry) as the matrix loader reads it.
    public static func spec(_ json: String) throws -> WorkloadSpec {
        var parser = WorkloadListParser()
        let w = parser.entry(try JSONParser.parse(json), JSONPath.root)
        #expect(parser.problems.isEmpty, "\(parser.problems)")
        return try #require(w)
    }

    /// Server and client of one loopback cell running `workload`; the server must finish cleanly.
    public static func run(
        _ plugin: some TransportPlugin, _ workload: WorkloadSpec, payload: Payload?, probes: Int = 3,
        seconds: Double = 30
    ) async throws -> TransportMeasurement {
        var cell = makeCell(payload: payload, probes: probes, seconds: seconds)
        cell.workload = workload
        let server = try await plugin.startServer(cell)
        let m = try await plugin.runClient(cell, server: server.address)
        try await server.finish()
        return m
    }
}
