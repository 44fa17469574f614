import PeerBenchPlugin
import Testing
import TransportTestSupport
import UDPTransport

/// `rttPayloads` through the real runner over loopback (`expectOnlyTheListedCellsProbe`).
@Suite("rttPayloads in a UDP run", .serialized, .timeLimit(.minutes(3)))
struct UDPRTTPayloadsRunTests {
    @Test("pipelined probes in the count-100 cells only; the count-200 cells record rtt_ms and rtt_method null")
    func onlyTheListedCellsProbe() async throws {
        try await expectOnlyTheListedCellsProbe(UDPPlugin.self, label: "udp")
    }
}
