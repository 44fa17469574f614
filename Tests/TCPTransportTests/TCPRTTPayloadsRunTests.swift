import PeerBenchPlugin
import TCPTransport
import Testing
import TransportTestSupport

/// `rttPayloads` through the real runner over loopback (`expectOnlyTheListedCellsProbe`).
@Suite("rttPayloads in a TCP run", .serialized, .timeLimit(.minutes(3)))
struct TCPRTTPayloadsRunTests {
    @Test("pipelined probes in the count-100 cells only; the count-200 cells record rtt_ms and rtt_method null")
    func onlyTheListedCellsProbe() async throws {
        try await expectOnlyTheListedCellsProbe(TCPPlugin.self, label: "tcp")
    }

    @Test("without rttPayloads every cell probes, as before")
    func absentMeansEveryCell() async throws {
        let records = try await runMatrix(
            [TCPPlugin.self], transports: #"[{"plugin": "tcp", "label": "tcp"}]"#,
            counts: "[100, 200]", sizes: "[128]", probes: 25, rttMethod: .pipelined)
        #expect(records.map { $0["rtt_ms"]?["count"] } == [25, 25])
        #expect(records.map { $0["rtt_method"] } == ["pipelined", "pipelined"])
    }
}
