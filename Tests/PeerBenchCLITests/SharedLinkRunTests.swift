import Foundation
import Testing

/// `"transportsAtOnce": true` end to end through `peerbench run` over the emulated link
/// (worker processes, namespaces, the userspace emulator): a block's transports run
/// at the same time over one link, and without the key they still run one after
/// another. The work is dominated by round trips (ping-pong probes over 2 x 25 ms),
/// so two transports that overlap take about as long as one, and two that do not
/// take about twice as long.
@Suite(.serialized, .enabled(if: CLIRunnerDeathTests.canEmulate, "needs root and /dev/net/tun"))
struct SharedLinkRunTests {
    static func matrix(atOnce: Bool?) -> String {
        """
        {"name": "shared-link", "rttProbes": 20, "cellTimeoutSeconds": 30, "seed": 7,
         \(atOnce.map { "\"transportsAtOnce\": \($0)," } ?? "")
         "transports": [{"plugin": "tcp", "label": "tcp"}, {"plugin": "udp", "label": "udp"}],
         "matrix": {"environments": [{"name": "lab", "link": {"delayMs": 25, "rateMbps": 20, "mtu": 1500}}],
                    "distances": [1], "payloads": {"counts": [20], "sizes": [1024]}}}
        """
    }

    /// Runs the matrix and returns its records by transport label.
    func run(atOnce: Bool?) throws -> [String: [String: Any]] {
        let d = CLI.tempDir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        try CLI.write(Self.matrix(atOnce: atOnce), to: d + "/m.json")
        let r = try CLI.run(["run", d + "/m.json", "--out", d + "/out"])
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        var out: [String: [String: Any]] = [:]
        for rec in try CLI.records(in: d + "/out") { out[(rec["transport"] as! [String: Any])["label"] as! String] = rec }
        #expect(out.count == 2)
        return out
    }

    /// [start, end] of a record on the wall clock, seconds.
    func interval(_ r: [String: Any]?) -> (start: Double, end: Double) {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let start = f.date(from: r?["started_at"] as? String ?? "")?.timeIntervalSince1970 ?? .nan
        return (start, start + (r?["total_seconds"] as? Double ?? .nan))
    }

    func packetsUp(_ r: [String: Any]?) -> Int { (r?["link"] as? [String: Any])?["packets_up"] as? Int ?? -1 }

    @Test("at once: both transports on one link at the same time, each with its own record naming the other")
    func atOnceOverlapsAndSharesTheLink() throws {
        let shared = try run(atOnce: true)
        let alone = try run(atOnce: nil)
        for label in ["tcp", "udp"] {
            #expect(shared[label]?["status"] as? String == "ok", "\(shared[label] ?? [:])")
            #expect(alone[label]?["status"] as? String == "ok", "\(alone[label] ?? [:])")
            #expect(shared[label]?["cell_id"] as? String == alone[label]?["cell_id"] as? String, "the same cells in both modes")
        }
        #expect(shared["tcp"]?["shared_link_with"] as? [String] == ["udp"])
        #expect(shared["udp"]?["shared_link_with"] as? [String] == ["tcp"])

        let (t, u) = (interval(shared["tcp"]), interval(shared["udp"]))
        // 20 probes of at least 50 ms each: a transport's own part takes over a second.
        #expect(t.end - t.start > 1.0 && u.end - u.start > 1.0, "\(t) \(u)")
        #expect(max(t.start, u.start) < min(t.end, u.end), "the two cells' intervals intersect: \(t) \(u)")
        // Run one after another inside the block, the later one would end a whole
        // transport's time (> 1 s) after the earlier; at once they end close together.
        #expect(abs(t.end - u.end) < 0.6, "tcp ended at +\(t.end - t.start) s, udp at +\(u.end - u.start) s")

        // One emulator carried both: each record's counters hold both transports' packets.
        #expect(packetsUp(shared["tcp"]) == packetsUp(shared["udp"]))
        let both = packetsUp(alone["tcp"]) + packetsUp(alone["udp"])
        #expect(
            Double(packetsUp(shared["tcp"])) >= 0.9 * Double(both),
            "shared link: \(packetsUp(shared["tcp"])) packets up; alone: tcp \(packetsUp(alone["tcp"])) + udp \(packetsUp(alone["udp"]))")
    }

    @Test("the default is unchanged: one transport after the other, each with the link to itself")
    func sequentialDefaultDoesNotOverlap() throws {
        let recs = try run(atOnce: nil)
        #expect(recs["tcp"]?["shared_link_with"] is NSNull)
        #expect(recs["udp"]?["shared_link_with"] is NSNull)
        let (t, u) = (interval(recs["tcp"]), interval(recs["udp"]))
        #expect(t.end - t.start > 1.0 && u.end - u.start > 1.0, "\(t) \(u)")
        // Interleaved order: tcp's cell, then udp's (started_at has millisecond precision at best).
        #expect(u.start >= t.end - 0.005, "udp started \(u.start - t.end) s after tcp ended")
    }

    @Test("a stop while a block runs leaves the whole block unrecorded; the resume runs it whole")
    func aStoppedBlockIsRecordedWholeOrNotAtAll() async throws {
        let d = CLI.tempDir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        // 60 probes of 50 ms: each transport's part takes 3 s, plenty to stop in.
        try CLI.write(Self.matrix(atOnce: true).replacingOccurrences(of: "\"rttProbes\": 20", with: "\"rttProbes\": 60"), to: d + "/m.json")
        let out = d + "/out"
        let p = try CLIRunnerDeathTests.Spawned(["run", d + "/m.json", "--out", out, "--link", "emulated"])
        // Two workers at once: the block's transports are running (the second worker is
        // started for the block only).
        let running = try await CLIRunnerDeathTests.eventually(60) {
            CLIRunnerDeathTests.children(of: p.pid, running: "cell-worker").count >= 2
        }
        #expect(running)
        try await Task.sleep(for: .milliseconds(500))
        kill(p.pid, SIGINT)
        let r = await p.wait()
        #expect(r.status == 130, "\(r.stderr)")
        let journal = (try? String(contentsOfFile: out + "/records.jsonl", encoding: .utf8)) ?? ""
        #expect(journal.split(separator: "\n").isEmpty, "neither transport of the stopped block is recorded: \(journal)")

        let resumed = try CLI.run(["run", d + "/m.json", "--resume", out])
        #expect(resumed.status == 0, "\(resumed.stdout)\n\(resumed.stderr)")
        let recs = try CLI.records(in: out)
        #expect(recs.count == 2)
        #expect(Set(recs.compactMap { ($0["shared_link_with"] as? [String])?.first }) == ["tcp", "udp"])
        #expect(recs.allSatisfy { $0["status"] as? String == "ok" })
    }
}

/// What `transportsAtOnce` refuses on the command line, naming the file and JSON path
/// (needs no root: refused before any link exists).
@Suite struct SharedLinkRefusalTests {
    @Test func remoteLinkAndOneTransportAreRefusedWithThePath() throws {
        let d = CLI.tempDir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        try CLI.write(SharedLinkRunTests.matrix(atOnce: true), to: d + "/m.json")
        try CLI.run(["psk", "new", d + "/k.psk"])
        let remote = try CLI.run(["run", d + "/m.json", "--link", "remote", "--peer", "127.0.0.1:9", "--psk-file", d + "/k.psk", "--out", d + "/out"])
        #expect(remote.status == 2)
        #expect(remote.stderr.contains("m.json: $.transportsAtOnce: transports cannot run at once over --link remote"), "\(remote.stderr)")
        let order = try CLI.run(["run", d + "/m.json", "--order", "sequential", "--out", d + "/out2"])
        #expect(order.status == 2 && order.stderr.contains("--order"), "\(order.stderr)")
        try CLI.write(
            SharedLinkRunTests.matrix(atOnce: true).replacingOccurrences(of: #", {"plugin": "udp", "label": "udp"}"#, with: ""), to: d + "/one.json")
        let one = try CLI.run(["validate", d + "/one.json"])
        #expect(one.status == 2)
        #expect(one.stderr.contains("one.json: $.transportsAtOnce: needs at least two transports"), "\(one.stderr)")
    }
}
