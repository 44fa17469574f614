import Foundation
import LinkEmulation
import PeerBenchCore
import Testing

/// `serve` and `run --link remote` with the emulated link between them: the
/// EmulatedTestbed's namespace pair (TUN devices and the userspace emulator, 5 ms one
/// way), serve in its server namespace, run in its client namespace. The control
/// channel's RTT in the records then shows the emulated delay.
@Suite(.serialized) struct RemoteEmulatedLinkTests {
    @Test func cellsCrossTheEmulatedLinkAndTheControlRttShowsItsDelay() async throws {
        let rig = try EmulatedServeRig(EmulatorParameters(delayNanos: 5_000_000, rateBitsPerSecond: 50e6, mtu: 1_500), port: 47_800)
        defer { rig.remove() }
        let matrix = try rig.write(RemoteRig.matrix(transports: #"[{"plugin": "tcp", "label": "tcp"}, {"plugin": "udp", "label": "udp"}]"#))
        let run = try rig.startRun(matrix)
        #expect(run.wait(seconds: 90) == 0, "run: \(run.stderr)\nserve: \(rig.serve.stderr)")
        let records = try rig.records()
        #expect(records.count == 2)
        for r in records {
            let link = r["link"] as? [String: Any] ?? [:]
            #expect(r["status"] as? String == "ok", "\(r["error"] ?? "")")
            #expect(link["mode"] as? String == "remote")
            let rtt = link["control_rtt_ms"] as? Double ?? 0
            // 2 x 5 ms through the emulator, plus scheduling; far below a cell's timeout.
            #expect(rtt >= 9.5 && rtt < 200, "control RTT \(rtt) ms over a 5 ms one-way link")
            let probes = r["rtt_ms"] as? [String: Any]
            #expect((probes?["p50"] as? Double ?? 0) >= 9.5, "the plugin's probes crossed the emulated link: \(String(describing: probes))")
        }
        let counters = try #require(rig.testbed.counters())
        #expect(counters.packetsUp > 100, "the emulator forwarded the cells' traffic: \(counters)")
    }
}
