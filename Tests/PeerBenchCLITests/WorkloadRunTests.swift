import Foundation
import Testing

/// Workloads end to end (docs/WORKLOADS.md): `peerbench run` over the emulated link of a
/// lab environment (10 ms each way, 20 Mbit/s), so every figure is checked against
/// the link it ran over; then `compare` on the records.
@Suite(.serialized, .timeLimit(.minutes(6)))
struct WorkloadRunTests {
    static let lab = #"{"name": "lab", "link": {"delayMs": 10, "rateMbps": 20, "mtu": 1500}}"#

    /// One run; the records by workload name, and the run folder (removed by the caller).
    func run(
        workloads: String, scenarios: String? = nil, transports: String = #"[{"plugin": "tcp", "label": "tcp", "options": {"noDelay": true}}]"#,
        payload: String = #"{"counts": [400], "sizes": [16384]}"#
    ) throws -> (records: [String: [[String: Any]]], dir: String) {
        let d = CLI.tempDir()
        try CLI.write(
            """
            {"name": "workload-test", "rttProbes": 5, "cellTimeoutSeconds": 40, "transports": \(transports),
             "matrix": {"environments": [\(Self.lab)], "distances": [1], "payloads": \(payload),
                        \(scenarios.map { "\"scenarios\": \($0)," } ?? "") "workloads": \(workloads)}}
            """, to: d + "/m.json")
        let r = try CLI.run(["run", d + "/m.json", "--out", d + "/out"])
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        var out: [String: [[String: Any]]] = [:]
        for rec in try CLI.records(in: d + "/out") {
            let name = (rec["workload"] as? [String: Any])?["name"] as? String ?? "?"
            out[name, default: []].append(rec)
        }
        return (out, d)
    }

    func object(_ r: [String: Any]?, _ key: String) -> [String: Any] { r?[key] as? [String: Any] ?? [:] }

    @Test("request-response over an idle 20 ms link: each transaction takes one round trip; compare names the workload")
    func transactionsTakeOneRoundTrip() throws {
        let (recs, dir) = try run(
            workloads: #"["upload", {"name": "rpc", "kind": "request-response", "requests": 30, "requestBytes": 100, "responseBytes": 1000}]"#)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let rpc = try #require(recs["rpc"]?.first)
        #expect(rpc["status"] as? String == "ok", "\(rpc["error"] ?? "")")
        #expect(rpc["payload"] is NSNull, "request-response carries its own sizes")
        let t = object(rpc, "request_response_ms")
        let p50 = try #require(t["p50"] as? Double), count = t["count"] as? Int
        print("request-response over a 20 ms RTT link: p50 \(p50) ms, p99 \(t["p99"] ?? "?") ms")
        #expect(count == 30)
        // 20 ms of propagation plus 1 100 bytes at 20 Mbit/s (0.44 ms) and the hosts'
        // stacks: 20.5-23 ms on a quiet host, 26 ms beside two busy loops with the timing
        // suites four at a time (issue 42). What the test is about is the count of round
        // trips, so the bound is half-way to the next one (40 ms).
        #expect(p50 >= 20 && p50 < 30, "one round trip per transaction: \(p50) ms")
        #expect(object(rpc, "workload")["kind"] as? String == "request-response")
        #expect(object(recs["upload"]?.first, "workload")["name"] as? String == "upload")

        let c = try CLI.run(["compare", dir + "/out", "--format", "json"])
        #expect(c.status == 0, "\(c.stderr)")
        #expect(c.stdout.contains("lab · rpc"), "the workload is part of compare's scenario")
        #expect(c.stdout.contains("request_response_p50_ms"))
    }

    /// The same kinds through the other transports that run them, each checked against the link.
    /// udp paces its data at 15 Mbit/s, below the link's rate: unpaced it would fill the
    /// emulator's queue and lose what does not fit, which is udp's business, not this test's.
    @Test(
        "tls, quic and udp over the 20 ms, 20 Mbit/s link: a round trip a transaction, the link's rate each way, every frame on time",
        arguments: [
            #"{"plugin": "tls", "label": "tls", "options": {"noDelay": true}}"#, #"{"plugin": "quic", "label": "quic"}"#,
            #"{"plugin": "udp", "label": "udp", "options": {"rateMbps": 15}}"#,
        ])
    func everyKindThrough(transport: String) throws {
        let voice = #"{"name": "voice", "kind": "isochronous", "frameBytes": 160, "periodMs": 20, "durationSeconds": 2, "direction": "bidir"}"#
        let rpc = #"{"name": "rpc", "kind": "request-response", "requests": 30, "requestBytes": 100, "responseBytes": 1000}"#
        let (recs, dir) = try run(workloads: "[\"download\", \"bidir\", \(rpc), \(voice)]", transports: "[\(transport)]")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let all = recs.values.flatMap { $0 }
        #expect(all.count == 4 && all.allSatisfy { $0["status"] as? String == "ok" }, "\(all.map { $0["error"] ?? "" })")
        let down = object(recs["download"]?.first, "throughput_by_direction_mbps")["down"] as? Double ?? 0
        let both = object(recs["bidir"]?.first, "throughput_by_direction_mbps")
        let p50 = object(recs["rpc"]?.first, "request_response_ms")["p50"] as? Double ?? 0
        let frames = object(recs["voice"]?.first, "frames")
        print(
            "\(transport): download \(down) Mbit/s, bidir \(both), rpc p50 \(p50) ms, voice \(frames), delay p99 \(object(recs["voice"]?.first, "frame_delay_ms")["p99"] ?? "?") ms"
        )
        #expect(down > 12 && down < 20.5, "download near the link's 20 Mbit/s: \(down)")
        #expect((both["up"] as? Double ?? 0) > 8 && (both["down"] as? Double ?? 0) > 8, "both ways at once: \(both)")
        #expect(p50 >= 20 && p50 < 30, "one round trip per transaction, not two (40 ms): \(p50) ms")
        #expect(frames["sent"] as? Int == 200 && frames["received"] as? Int == 200 && frames["late"] as? Int == 0, "\(frames)")
    }

    @Test("download and bidir: each direction runs near the link's 20 Mbit/s, and both at once over a link with a queue each way")
    func directions() throws {
        let (recs, dir) = try run(workloads: #"["download", "bidir"]"#)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let down = try #require(recs["download"]?.first), both = try #require(recs["bidir"]?.first)
        #expect(down["status"] as? String == "ok" && both["status"] as? String == "ok", "\(down["error"] ?? "") \(both["error"] ?? "")")
        let downRate = try #require(object(down, "throughput_by_direction_mbps")["down"] as? Double)
        #expect(object(down, "throughput_by_direction_mbps")["up"] is NSNull)
        let bothRates = object(both, "throughput_by_direction_mbps")
        let up = try #require(bothRates["up"] as? Double), dn = try #require(bothRates["down"] as? Double)
        print("20 Mbit/s link: download \(downRate) Mbit/s; bidir up \(up), down \(dn), total \(both["throughput_mbps"] ?? "?")")
        #expect(downRate > 15 && downRate < 20.5)
        // The emulator has a queue per direction: both run close to the rate at once.
        #expect(up > 12 && up < 20.5 && dn > 12 && dn < 20.5)
        #expect(object(object(both, "delivery_by_direction"), "down")["received_bytes"] as? Int == 400 * 16_384)
    }

    @Test("voice (160 B every 20 ms, 3 % of the link): no late frame on a clean link, late frames through a 1 s outage, none lost over tcp")
    func voiceThroughAnOutage() throws {
        let voice = #"{"name": "voice", "kind": "isochronous", "frameBytes": 160, "periodMs": 20, "durationSeconds": 3, "direction": "bidir"}"#
        let (recs, dir) = try run(
            workloads: "[\(voice)]", scenarios: #"["static", {"name": "cut", "kind": "outage", "atSeconds": 1.5, "durationSeconds": 1}]"#)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cells = recs["voice"] ?? []
        #expect(cells.count == 2)
        let clean = try #require(cells.first { object($0, "scenario")["kind"] as? String == "static" })
        let cut = try #require(cells.first { object($0, "scenario")["kind"] as? String == "outage" })
        let f0 = object(clean, "frames"), f1 = object(cut, "frames")
        print(
            "voice: clean \(f0), delay p99 \(object(clean, "frame_delay_ms")["p99"] ?? "?") ms; outage \(f1), delay max \(object(cut, "frame_delay_ms")["max"] ?? "?") ms"
        )
        #expect(f0["sent"] as? Int == 300 && f0["received"] as? Int == 300 && f0["late"] as? Int == 0)
        // A few ms on a quiet machine (5.6 measured); a busy one adds scheduling delay:
        // 25 ms beside two busy loops with the timing suites four at a time (issue 42).
        // What a clean link must not show is a frame held behind a retransmission (tcp's
        // at least 200 ms after the loss): 50 ms is a quarter of that.
        let cleanP99 = object(clean, "frame_delay_ms")["p99"] as? Double ?? 99
        #expect(cleanP99 < 50, "a clean link delays no frame behind a retransmission: p99 \(cleanP99) ms")
        // The frames of the outage's second wait for the link (and TCP's retransmission):
        // at least the 40 that fell inside it, each way, are past the 100 ms deadline.
        #expect((f1["late"] as? Int ?? 0) >= 40, "\(f1)")
        #expect(f1["lost"] as? Int == 0, "tcp delivers every frame, late")
        #expect((object(cut, "frame_delay_ms")["max"] as? Double ?? 0) > 900)
    }

    @Test("a workload a transport cannot run is refused before anything runs, naming its path")
    func unsupportedIsRefused() throws {
        let d = CLI.tempDir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        try CLI.write(
            """
            {"transports": [{"plugin": "uwb"}, {"plugin": "exec", "label": "x", "options": {"client": ["/bin/true"]}}],
             "matrix": {"environments": ["forest"], "distances": [1], "payloads": {"counts": [1], "sizes": [1]},
                        "workloads": ["upload", "download"]}}
            """, to: d + "/m.json")
        let r = try CLI.run(["validate", d + "/m.json"])
        #expect(r.status != 0)
        #expect(r.stderr.contains("$.matrix.workloads[1]") && r.stderr.contains("unsupported"), "\(r.stderr)")
        #expect(!r.stderr.contains("uwb"), "uwb has no payload: the workloads do not apply to it")
    }

    /// quic's 4 streams of one connection and udp's 4 flows over the 20 Mbit/s link: the
    /// bytes arrive exactly, each flow has its throughput, the flows share the link at
    /// once (quic: every stream's first byte before any stream's last; udp: every flow
    /// began before any ended), and the total is the link's rate. udp paces at 16 Mbit/s
    /// in all (4 each), below the link's rate, so its counts are exact too.
    @Test(
        "parallel streams over the 20 ms, 20 Mbit/s link: quic's 4 streams and udp's 4 flows share the link at once",
        arguments: [#"{"plugin": "quic", "label": "quic"}"#, #"{"plugin": "udp", "label": "udp", "options": {"rateMbps": 16}}"#])
    func parallelStreams(transport: String) throws {
        let udp = transport.contains("udp")
        let entries = ["up", "down", "bidir"].map { #"{"name": "p4-\#($0)", "kind": "bulk", "direction": "\#($0)", "streams": 4}"# }
        let (recs, dir) = try run(
            workloads: "[\(entries.joined(separator: ", "))]", transports: "[\(transport)]",
            payload: #"{"counts": [202], "sizes": [16384]}"#)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for direction in ["up", "down", "bidir"] {
            let rec = try #require(recs["p4-\(direction)"]?.first)
            #expect(rec["status"] as? String == "ok", "\(direction): \(rec["error"] ?? "")")
            let ways = direction == "bidir" ? 2 : 1
            let d = object(rec, "delivery")
            #expect(d["received_bytes"] as? Int == 202 * 16_384 * ways && d["received_messages"] as? Int == 202 * ways, "\(direction): \(d)")
            let streams = try #require(object(rec, "extra")["streams"] as? [[String: Any]])
            let mbps = streams.compactMap { $0["throughput_mbps"] as? Double }
            #expect(mbps.count == 4 && mbps.allSatisfy { $0 > 0 }, "\(direction): \(streams)")
            let total = rec["throughput_mbps"] as? Double ?? 0
            print(
                "\(udp ? "udp 4 flows" : "quic 4 streams") \(direction) over 20 Mbit/s, 20 ms: \(mbps) Mbit/s, total \(total), by direction \(object(rec, "throughput_by_direction_mbps"))"
            )
            if udp {
                let began = streams.compactMap { $0["started_ms"] as? Double }, ended = streams.compactMap { $0["ended_ms"] as? Double }
                #expect(began.count == 4 && (began.max() ?? .infinity) < (ended.min() ?? 0), "\(direction): began \(began), ended \(ended)")
                #expect(Set(streams.compactMap { $0["source_port"] as? Int }).count == 4)
                // 16 Mbit/s paced in all, a little less delivered per direction (the first and last datagram's spacing).
                #expect(total > 12 * Double(ways) && total < 16.5 * Double(ways), "\(direction): \(total)")
            } else {
                for way in direction == "bidir" ? ["up", "down"] : [direction] {
                    let firsts = streams.compactMap { $0["\(way)_first_ms"] as? Double },
                        lasts = streams.compactMap { $0["\(way)_last_ms"] as? Double }
                    #expect(firsts.count == 4 && (firsts.max() ?? .infinity) < (lasts.min() ?? 0), "\(way): first \(firsts), last \(lasts)")
                }
                // 4 flows fill the link as one does: near its 20 Mbit/s, each stream near a quarter.
                if ways == 1 {
                    #expect(total > 14 && total < 20.5, "\(direction): \(total)")
                } else {
                    // Both ways loaded, each direction's acknowledgements queue behind the other's
                    // data. Down ran 13.8-16.9 Mbit/s in six runs, up 17.8-17.9; on another host
                    // up was the slower one, 13.9 against 18.1 (2026-12-02): either direction
                    // may be. A bound of 28 on the total failed one run in six.
                    let by = object(rec, "throughput_by_direction_mbps")
                    let up = by["up"] as? Double ?? 0, down = by["down"] as? Double ?? 0
                    #expect(up > 11 && up < 20.5 && down > 11 && down < 20.5, "bidir: up \(up), down \(down)")
                }
                // A flow's throughput counts both its directions (as tcp's flows): bidir's are twice.
                #expect(mbps.allSatisfy { $0 > 2.5 * Double(ways) && $0 < 6 * Double(ways) }, "\(direction): a fair share each: \(mbps)")
            }
        }
    }

    @Test("parallel streams on a transport that cannot run them (exec) are refused before anything runs, naming the workload's path")
    func parallelStreamsRefused() throws {
        let d = CLI.tempDir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        try CLI.write(
            """
            {"transports": [{"plugin": "quic"}, {"plugin": "udp"}, {"plugin": "exec", "label": "x", "options": {"client": ["/bin/true"]}}],
             "matrix": {"environments": ["forest"], "distances": [1], "payloads": {"counts": [8], "sizes": [100]},
                        "workloads": ["upload", {"name": "p4", "kind": "bulk", "streams": 4}]}}
            """, to: d + "/m.json")
        let r = try CLI.run(["validate", d + "/m.json"])
        #expect(r.status != 0)
        #expect(r.stderr.contains("$.matrix.workloads[1]") && r.stderr.contains("exec"), "\(r.stderr)")
        #expect(!r.stderr.contains("quic:") && !r.stderr.contains("udp:"), "quic and udp run parallel streams: \(r.stderr)")
    }

    /// The request-response p99s (or p50s) of 3 repetitions each of tcp (one connection)
    /// and quic (a stream per request), 4 transactions outstanding, over a 20 ms round
    /// trip with `loss` percent independent loss.
    func holP99s(_ loss: Int, requests: Int, quantile: String = "p99") throws -> (tcp: [Double], quic: [Double]) {
        let d = CLI.tempDir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        try CLI.write(
            """
            {"name": "hol", "rttProbes": 3, "cellTimeoutSeconds": 60, "repetitions": 3, "seed": 3,
             "transports": [{"plugin": "tcp", "label": "tcp", "options": {"noDelay": true, "congestionControl": "cubic"}},
                            {"plugin": "quic", "label": "quic", "options": {"congestionControl": "cubic"}}],
             "matrix": {"environments": [{"name": "lossy", "link": {"delayMs": 10, "rateMbps": 50, "mtu": 1500, "lossPercent": \(loss)}}],
                        "distances": [1], "payloads": {"counts": [1], "sizes": [1]},
                        "workloads": [{"name": "rpc4", "kind": "request-response", "requests": \(requests), "requestBytes": 200,
                                       "responseBytes": 8000, "concurrency": 4}]}}
            """, to: d + "/m.json")
        let r = try CLI.run(["run", d + "/m.json", "--out", d + "/out"])
        #expect(r.status == 0, "\(r.stderr)")
        var out: (tcp: [Double], quic: [Double]) = ([], [])
        for rec in try CLI.records(in: d + "/out") {
            #expect(rec["status"] as? String == "ok", "\(rec["error"] ?? "")")
            let p99 = object(rec, "request_response_ms")[quantile] as? Double ?? .nan
            if (rec["transport"] as? [String: Any])?["label"] as? String == "tcp" { out.tcp.append(p99) } else { out.quic.append(p99) }
        }
        #expect(out.tcp.count == 3 && out.quic.count == 3, "\(out)")
        return out
    }

    func median(_ xs: [Double]) -> Double { xs.isEmpty ? .nan : xs.sorted()[xs.count / 2] }

    // Head-of-line blocking, in two tests (one until issue 42, 84 s: the clean link's
    // and the lossy link's runs now take a process each, side by side). 3 repetitions,
    // not 5 (the test took 135 s with 5; issue 42). 600 transactions on both links: with
    // 300 on the clean one, one scheduling stall was enough to lift a cell's p99 (the
    // 3rd largest of 300) to 121 ms in a fresh-clone run.

    /// What the clean link must show is that neither transport spends another round trip
    /// per transaction (+20 ms on this 20 ms RTT link), so a transaction's median time:
    /// the medians of 3 cells' p50s differ by under half a round trip. (Until issue 42
    /// the p99s, 23-26 ms both on a quiet host: on a loaded one their medians differed
    /// by 7.67 and then 14.6 ms, the cells' p99s ranging 29-178 ms with the timing suites
    /// four at a time beside two busy loops. The p99 of 600 transactions carries the
    /// host's scheduling stalls; the lossy link's test is about the tail.)
    @Test("head-of-line blocking, the clean link: 4 outstanding transactions cost tcp's one connection no more round trips than quic's streams")
    func headOfLineBlockingCleanLink() throws {
        let clean = try holP99s(0, requests: 600, quantile: "p50")
        print("request-response p50, 4 outstanding, clean link: tcp \(clean.tcp) quic \(clean.quic) ms")
        let cleanGap = abs(median(clean.tcp) - median(clean.quic))
        #expect(cleanGap < 10, "a clean link: the same transactions, no extra round trip (20 ms) on either; median p50s differ by \(cleanGap) ms")
    }

    /// 4 flows of transactions (4 outstanding at once) on one tcp connection wait for
    /// each other's lost segments (the byte stream delivers in order); on quic each
    /// transaction has its own stream (docs/WORKLOADS.md, "Head-of-line blocking").
    /// Measured (600 transactions, 2 % loss, 19 cells each): tcp 126-293, quic 82-107.
    /// Medians of 3 (2026-11-29, four runs, one beside two builds): tcp 191-211 against
    /// quic 93-100, so a failure needs two of three tcp cells below 1.25 x quic's median
    /// (115-125 ms), lower than any tcp cell seen.
    @Test("head-of-line blocking: 4 outstanding transactions over 2 % loss, one tcp connection against quic's stream per request")
    func headOfLineBlocking() throws {
        let lossy = try holP99s(2, requests: 600)
        print("request-response p99, 4 outstanding, 2 % loss: tcp \(lossy.tcp) quic \(lossy.quic) ms")
        #expect(median(lossy.tcp) > 1.25 * median(lossy.quic), "a lost segment holds up every transaction behind it on tcp")
    }
}
