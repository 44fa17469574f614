import Foundation
import Testing

/// `reconnect_ms` as a compare metric (docs/COMPARE.md, issue 27): read from the
/// record's `scenario` object, tested like any other metric, absent where a transport
/// never reconnected.
struct CompareReconnectTests {
    @Test("compare gives reconnect_ms a verdict from 8 repetitions a side, and leaves it out where no cell reconnected")
    func reconnectTimeIsCompared() throws {
        let d = CLI.tempDir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let reps = 8
        try CLICompareTests.runFolder(
            d + "/run",
            rows: [
                ("tcp-reconnect", Array(repeating: 60, count: reps)),
                ("quic-0rtt", Array(repeating: 50, count: reps)),
                ("tcp-ut1.5", Array(repeating: 0, count: reps)),
            ])
        var lines: [String] = []
        for line in try String(contentsOfFile: d + "/run/records.jsonl", encoding: .utf8).split(separator: "\n") {
            var r = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let label = (r["transport"] as? [String: Any])?["label"] as? String
            let rep = Double(r["repetition"] as? Int ?? 0)
            let ms: Any = label == "tcp-reconnect" ? 1_000 + 5 * rep : label == "quic-0rtt" ? 190 + rep : NSNull()
            r["scenario"] = ["name": "outage-10s", "kind": "outage", "reconnects": label == "tcp-ut1.5" ? 0 : 1, "reconnect_ms": ms]
            lines.append(String(decoding: try JSONSerialization.data(withJSONObject: r), as: UTF8.self))
        }
        try CLI.write(lines.joined(separator: "\n") + "\n", to: d + "/run/records.jsonl")
        let r = try CLI.run(["compare", d + "/run", "--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let scenario = try #require((doc["scenarios"] as? [[String: Any]])?.first)
        let transports = try #require(scenario["transports"] as? [[String: Any]])
        func metric(_ label: String) -> [String: Any]? {
            (transports.first { $0["label"] as? String == label }?["metrics"] as? [String: Any])?["reconnect_ms"] as? [String: Any]
        }
        #expect(metric("tcp-reconnect")?["median"] as? Double == 1_022.5)
        #expect(metric("quic-0rtt")?["median"] as? Double == 194.5)
        #expect(metric("tcp-ut1.5") == nil, "no cell of tcp-ut1.5 reconnected")
        let pairs = try #require(scenario["pairs"] as? [[String: Any]])
        let pair = try #require(pairs.first { $0["metric"] as? String == "reconnect_ms" })
        #expect(pair["a"] as? String == "tcp-reconnect" && pair["b"] as? String == "quic-0rtt")
        #expect(pair["verdict"] as? String == "worse", "\(pair)")
        #expect((pair["p_adjusted"] as? Double ?? 1) < 0.05)
        let text = try CLI.run(["compare", d + "/run"])
        #expect(text.stdout.contains("reconnect ms"), "\(text.stdout)")
    }
}
