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
        let testbed = try EmulatedTestbed(initialMTU: 1_500)
        defer { testbed.shutdownNow() }
        let endpoints = try testbed.configure(EmulatorParameters(delayNanos: 5_000_000, rateBitsPerSecond: 50e6, mtu: 1_500), seed: 1)
        let (clientNS, serverNS) = (try #require(endpoints.client.namespace), try #require(endpoints.server.namespace))
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pbr-emu-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let key = dir + "/key.psk"
        #expect(try PeerbenchProcess(["psk", "new", key], in: nil).wait(seconds: 30) == 0)
        let peer = "\(endpoints.server.address):47800"
        let serve = try PeerbenchProcess(["serve", "--listen", peer, "--psk-file", key, "--data-ports", "47801-47810"], in: serverNS)
        defer {
            serve.kill(SIGKILL)
            serve.wait(seconds: 5)
        }
        #expect(serve.waitFor("listening on", seconds: 30), "\(serve.stderr)")
        let matrix = dir + "/m.json"
        try Data(RemoteRig.matrix(transports: #"[{"plugin": "tcp", "label": "tcp"}, {"plugin": "udp", "label": "udp"}]"#).utf8)
            .write(to: URL(fileURLWithPath: matrix))
        let run = try PeerbenchProcess(["run", matrix, "--out", dir + "/out", "--link", "remote", "--peer", peer, "--psk-file", key], in: clientNS)
        #expect(run.wait(seconds: 90) == 0, "run: \(run.stderr)\nserve: \(serve.stderr)")
        let text = (try? String(contentsOfFile: dir + "/out/records.jsonl", encoding: .utf8)) ?? ""
        let records = try text.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
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
        let counters = try #require(testbed.counters())
        #expect(counters.packetsUp > 100, "the emulator forwarded the cells' traffic: \(counters)")
    }
}
