import Foundation
import Testing

/// A lossy transfer of large udp datagrams leaves half-reassembled fragments in the
/// receiving namespace; they must not cost the next cell (the field-study run of
/// 2026-11-26 lost every fragmented datagram of the cells that followed one).
@Suite(.serialized, .enabled(if: CLIRunnerDeathTests.canEmulate, "needs root and /dev/net/tun"))
struct FragmentReassemblyTests {
    @Test("after a lossy cell of fragmented datagrams, the next cell on a clean link receives them all")
    func theNextCellIsNotSpoiled() throws {
        // 1 000 datagrams of 8 000 B are six fragments each on a 1 500 B MTU: at 20 %
        // loss almost every one stays incomplete, far more than the kernel's 4 MiB of
        // reassembly memory. The clean cell runs right after it, paced below the link.
        let text = """
            {"name": "frag", "rttProbes": 0, "order": "sequential", "cellTimeoutSeconds": 40,
             "transports": [{"plugin": "udp", "label": "udp", "options": {"rateMbps": 20}}],
             "matrix": {"environments": [
                  {"name": "lossy", "link": {"delayMs": 2, "rateMbps": 50, "mtu": 1500, "lossPercent": 20}},
                  {"name": "clean", "link": {"delayMs": 2, "rateMbps": 50, "mtu": 1500}}],
                "distances": [1], "payloads": {"counts": [1000], "sizes": [8000]}}}
            """
        let d = CLI.tempDir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        try CLI.write(text, to: d + "/m.json")
        let r = try CLI.run(["run", d + "/m.json", "--out", d + "/out"])
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        let records = try CLI.records(in: d + "/out")
        let byEnv = Dictionary(records.map { ($0["environment"] as? String ?? "?", $0) }) { a, _ in a }
        let lossy = byEnv["lossy"]?["delivery"] as? [String: Any]
        #expect((lossy?["received_messages"] as? Int ?? 1_000) < 500, "the lossy cell must leave fragments behind: \(String(describing: lossy))")
        let clean = byEnv["clean"]?["delivery"] as? [String: Any]
        #expect(clean?["received_messages"] as? Int == 1_000, "clean link right after: \(String(describing: clean))")
    }
}
