import Foundation
import LinkEmulation
import PeerBenchCore
import Testing

/// `reconnect` over `--link remote`: serve in the emulated link's server namespace, run
/// in its client namespace, and a 3 s outage cut into the middle of the bulk phase by
/// restarting the emulator with an outage from its start. serve's tcp server keeps the
/// client's count across its connections, so the transfer completes once; a remote
/// cell has no scenario object, so `extra.reconnect` is where the reconnect shows.
@Suite(.serialized) struct RemoteReconnectTests {
    @Test func aTCPCellOverServeSurvivesAnOutageByReconnecting() async throws {
        let testbed = try EmulatedTestbed(initialMTU: 1_500)
        defer { testbed.shutdownNow() }
        var params = EmulatorParameters(delayNanos: 5_000_000, rateBitsPerSecond: 50e6, mtu: 1_500)
        let endpoints = try testbed.configure(params, seed: 1)
        let (clientNS, serverNS) = (try #require(endpoints.client.namespace), try #require(endpoints.server.namespace))
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pbr-rc-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let key = dir + "/key.psk"
        #expect(try PeerbenchProcess(["psk", "new", key], in: nil).wait(seconds: 30) == 0)
        let peer = "\(endpoints.server.address):47820"
        let serve = try PeerbenchProcess(["serve", "--listen", peer, "--psk-file", key, "--data-ports", "47821-47830"], in: serverNS)
        defer {
            serve.kill(SIGKILL)
            serve.wait(seconds: 5)
        }
        #expect(serve.waitFor("listening on", seconds: 30), "\(serve.stderr)")
        // 3 000 x 16 KiB at 50 Mbit/s: about 8 s of bulk.
        let matrix = dir + "/m.json"
        try Data(
            RemoteRig.matrix(
                transports: #"[{"plugin": "tcp", "label": "tcp-rc", "options": {"userTimeoutMs": 1000, "reconnect": true}}]"#,
                count: 3_000, size: 16_384, timeout: 40, probes: 5
            ).utf8
        )
        .write(to: URL(fileURLWithPath: matrix))
        let run = try PeerbenchProcess(["run", matrix, "--out", dir + "/out", "--link", "remote", "--peer", peer, "--psk-file", key], in: clientNS)
        // Once 10 MB crossed (the bulk is under way), the link goes dead for 3 s.
        var waited = 0
        while (testbed.counters()?.bytesUp ?? 0) < 10_000_000 && waited < 3_000 {
            try await Task.sleep(nanoseconds: 10_000_000)
            waited += 1
        }
        #expect(waited < 3_000, "the bulk phase never got going: \(serve.stderr)")
        var outage = ScenarioTimeline()
        outage.outages = [0..<3_000_000_000]
        params.scenario = outage
        try testbed.configure(params, seed: 2)
        #expect(run.wait(seconds: 90) == 0, "run: \(run.stderr)\nserve: \(serve.stderr)")
        let text = (try? String(contentsOfFile: dir + "/out/records.jsonl", encoding: .utf8)) ?? ""
        let r = try #require(try text.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }.first)
        let d = r["delivery"] as? [String: Any] ?? [:]
        #expect(r["status"] as? String == "ok", "\(r["error"] ?? "")")
        #expect((r["link"] as? [String: Any])?["mode"] as? String == "remote")
        #expect(d["received_messages"] as? Int == 3_000 && d["duplicated"] as? Int == 0, "every message once: \(d)")
        let reconnect = (r["extra"] as? [String: Any])?["reconnect"] as? [String: Any] ?? [:]
        #expect((reconnect["count"] as? Int ?? 0) >= 1, "the 1 s user timeout ends the connection in a 3 s outage: \(r["extra"] ?? "")")
        // From noticing the loss to RESUMED: the rest of the outage (at most 2 s) plus one slot (at most 2 s).
        #expect((reconnect["lost_to_resumed_ms"] as? [Double])?.allSatisfy { $0 > 0 && $0 < 4_500 } == true, "\(reconnect)")
    }
}
