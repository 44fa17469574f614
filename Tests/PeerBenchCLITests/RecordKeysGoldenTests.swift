import Foundation
import Testing

/// Records keep their keys across versions (issue 40: "records with the same keys as
/// before"; docs/RECORDS.md): a reader, a saved baseline, `compare` and `merge` find
/// every field where the version before put it. `Golden/record-keys.json` holds the key
/// paths of one record per transport x workload kind, from a run of cf7806f (before
/// the contract's split and the workloads defined once) of the matrix below; this
/// build's records must have the same. A key added or moved fails here until the
/// golden file changes in the same commit, with a line in docs/RECORDS.md saying why.
@Suite struct RecordKeysGoldenTests {
    static let golden = CLI.packageRoot + "/Tests/PeerBenchCLITests/Golden/record-keys.json"
    static let matrix = """
        {"name": "keys", "repetitions": 1, "rttProbes": 5, "seed": 1, "cellTimeoutSeconds": 30,
         "transports": [{"plugin": "tcp"}, {"plugin": "tls"}, {"plugin": "udp"}, {"plugin": "quic"}],
         "matrix": {"environments": ["free-field"], "distances": [1], "payloads": {"counts": [20], "sizes": [1000]},
           "workloads": ["upload", "download", "bidir",
             {"name": "rpc", "kind": "request-response", "requests": 5, "requestBytes": 100, "responseBytes": 200},
             {"name": "voice", "kind": "isochronous", "frameBytes": 160, "periodMs": 20, "durationSeconds": 0.2, "direction": "bidir"}]}}
        """

    /// A record's key paths: `a.b` a value, `a{}` an object, `a[]` an array (and the
    /// keys of its objects as `a[].k`), `a?` null.
    static func paths(_ value: Any, _ prefix: String = "", into out: inout Set<String>) {
        let dot = prefix.isEmpty ? "" : prefix + "."
        switch value {
        case is NSNull: out.insert(prefix + "?")
        case let o as [String: Any]:
            if !prefix.isEmpty { out.insert(prefix + "{}") }
            for (k, v) in o { paths(v, dot + k, into: &out) }
        case let a as [Any]:
            out.insert(prefix + "[]")
            for v in a where v is [String: Any] || v is [Any] { paths(v, prefix + "[]", into: &out) }
        default: out.insert(prefix)
        }
    }

    /// The paths of `a` not in `b`, leaving out a node null on one side that the other
    /// has, and what lies under a node null in `b` (a figure one run did not get: its
    /// key is there, its fields are not).
    static func missing(from b: Set<String>, in a: Set<String>) -> [String] {
        a.subtracting(b).filter { path in
            var node = path
            for marker in ["{}", "[]", "?"] where node.hasSuffix(marker) { node.removeLast(marker.count) }
            if path.hasSuffix("?") && ["", "{}", "[]"].contains(where: { b.contains(node + $0) }) { return false }
            let parts = node.split(separator: ".")
            return !(1...parts.count).contains { b.contains(parts[0..<$0].joined(separator: ".") + "?") }
        }.sorted()
    }

    @Test("every record of the four transports and five workload kinds has the keys cf7806f's had")
    func recordsHaveTheGoldenKeys() throws {
        let d = CLI.tempDir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        try CLI.write(Self.matrix, to: d + "/m.json")
        let r = try CLI.run(["run", d + "/m.json", "--out", d + "/out", "--link", "none", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.golden))
        let golden = try #require(try JSONSerialization.jsonObject(with: data) as? [String: [String]])
        var seen: Set<String> = []
        for record in try CLI.records(in: d + "/out") {
            let transport = try #require((record["transport"] as? [String: Any])?["label"] as? String)
            let workload = try #require((record["workload"] as? [String: Any])?["name"] as? String)
            let name = transport + " " + workload
            seen.insert(name)
            let pinned = try #require(golden[name].map(Set.init), "no golden keys for \(name)")
            var now: Set<String> = []
            Self.paths(record, into: &now)
            #expect(Self.missing(from: now, in: pinned) == [], "\(name): keys of cf7806f's record this one lacks")
            #expect(Self.missing(from: pinned, in: now) == [], "\(name): keys cf7806f's record did not have")
        }
        #expect(seen == Set(golden.keys), "one record per transport x workload")
    }

    @Test("a key the record lacks is named, one under a field the other run left null is not")
    func differencesLeaveOutWhatIsNull() {
        let pinned: Set<String> = ["rtt_ms{}", "rtt_ms.mean", "status", "delivery{}", "delivery.sent"]
        let now: Set<String> = ["rtt_ms?", "status", "delivery{}"]
        #expect(Self.missing(from: now, in: pinned) == ["delivery.sent"])
        #expect(Self.missing(from: pinned, in: now) == [])
    }
}
