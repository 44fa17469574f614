import Foundation
import Testing

/// `reconnect` end to end through `peerbench run` over the emulated link: tcp and tls
/// with a 1.5 s user timeout lose their connection in a 3 s outage in the middle of
/// the bulk phase, connect again once the link is back (tls with `sessionTickets`
/// resuming the first connection's session), and finish the transfer with every
/// message delivered exactly once; udp with a 1.5 s keepalive resumes from the
/// server's next sequence number, so the datagrams sent into the outage are sent again.
@Suite(.serialized, .enabled(if: CLIRunnerDeathTests.canEmulate, "needs root and /dev/net/tun"))
struct ScenarioReconnectTests {
    /// 400 x 16 KiB at 20 Mbit/s take 2.6 s without the outage (udp paced at 8 Mbit/s:
    /// 6.5 s): it falls inside the bulk phase.
    static let matrix = """
        {"name": "reconnect-test", "rttProbes": 5, "cellTimeoutSeconds": 40,
         "transports": [
           {"plugin": "tcp", "label": "tcp-rc", "options": {"userTimeoutMs": 1500, "reconnect": true}},
           {"plugin": "tls", "label": "tls-rc", "options": {"userTimeoutMs": 1500, "reconnect": true}},
           {"plugin": "tls", "label": "tls-tickets-rc", "options": {"userTimeoutMs": 1500, "reconnect": true, "sessionTickets": true}},
           {"plugin": "udp", "label": "udp-rc", "options": {"rateMbps": 8, "keepAlive": {"intervalMs": 500, "missed": 3}, "reconnect": true}},
           {"plugin": "tcp", "label": "tcp"}],
         "matrix": {"environments": [\(ScenarioRunTests.lab)], "distances": [1],
                    "scenarios": [{"name": "o", "kind": "outage", "atSeconds": 0.8, "durationSeconds": 3}],
                    "payloads": {"counts": [400], "sizes": [16384]}}}
        """

    @Test(
        "outage of 3 s: tcp and tls with userTimeoutMs 1500, udp with keepAlive 500 ms x 3, each with reconnect, complete ok, every message once, reconnect_ms measured"
    )
    func outage() throws {
        let recs = try ScenarioRunTests().run(Self.matrix)
        for label in ["tcp-rc", "tls-rc", "tls-tickets-rc", "udp-rc"] {
            let r = try #require(recs[label], "\(label) has a record")
            let s = ScenarioRunTests().scenario(r)
            let d = r["delivery"] as? [String: Any] ?? [:]
            #expect(r["status"] as? String == "ok", "\(label): \(r)")
            #expect(d["sent_messages"] as? Int == 400 && d["received_messages"] as? Int == 400, "\(label) exactly once: \(d)")
            #expect(d["received_bytes"] as? Int == 400 * 16_384 && d["duplicated"] as? Int == 0, "\(label): \(d)")
            #expect(s["duplicates"] as? Int == 0, "\(label): \(s)")
            #expect((s["reconnects"] as? Int ?? 0) >= 1, "\(label): the 1.5 s user timeout ends the connection in a 3 s outage: \(s)")
            #expect(s["survived"] as? Bool == true, "\(label): the transfer completed: \(s)")
            // The connection dies 1.5 s (plus up to a retransmission timeout) into the
            // outage; udp's keepalive 1-1.5 s after its last answer.
            let detect = s["detect_ms"] as? Double ?? -1
            #expect(detect >= (label == "udp-rc" ? 900 : 1_400) && detect <= 3_000, "\(label): \(s)")
            // Back within one capped backoff slot (2 s) of the link's return, plus the
            // set-up's round trips (10 ms each) and a loaded machine's scheduling.
            let back = s["reconnect_ms"] as? Double ?? -1
            #expect(back >= 0 && back <= 2_500, "\(label): \(s)")
            // Whatever sat in the lost connection's buffers is sent again, and counted.
            #expect((s["resent_bytes"] as? Int ?? -1) >= 0, "\(label): \(s)")
            if label == "tls-tickets-rc" {
                // No priming connection with reconnect: the first connection's ticket (it
                // came with the probes' echoes) resumes the re-made one.
                #expect(s["resumed"] as? Bool == true, "the re-made tls connection resumed the first one's session: \(s)")
                #expect((r["extra"] as? [String: Any])?["tls"].flatMap { ($0 as? [String: Any])?["priming_connect_ms"] } == nil, "\(r)")
            } else {
                #expect(s["resumed"] is NSNull, "no resumption asked for: \(s)")
            }
            // The same reconnects in extra, with the client's own view of each.
            let extra = (r["extra"] as? [String: Any])?["reconnect"] as? [String: Any] ?? [:]
            #expect(extra["count"] as? Int == s["reconnects"] as? Int, "\(label): \(extra)")
            #expect((extra["attempts"] as? [Int])?.allSatisfy { $0 >= 1 } == true, "\(label): \(extra)")
            // From noticing the loss to RESUMED: the rest of the outage, at most the 3 s it lasted, plus one slot.
            #expect((extra["lost_to_resumed_ms"] as? [Double])?.allSatisfy { $0 > 0 && $0 < 5_000 } == true, "\(label): \(extra)")
        }
        // Without the option nothing changes: the connection rides the outage out.
        let plain = ScenarioRunTests().scenario(recs["tcp"])
        #expect(plain["reconnects"] as? Int == 0 && plain["reconnect_ms"] is NSNull && plain["duplicates"] is NSNull, "\(plain)")
        #expect(plain["resent_bytes"] is NSNull && plain["survived"] as? Bool == true, "\(plain)")
        #expect((recs["tcp"]?["extra"] as? [String: Any])?["reconnect"] == nil)
    }

    @Test("reconnect without userTimeoutMs (tls) or keepAlive (udp) is refused at validation, naming the option and saying why")
    func refusedWithoutDetection() throws {
        let d = CLI.tempDir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        try CLI.write(
            """
            {"name": "refused", "transports": [{"plugin": "tls", "options": {"reconnect": {"backoffMs": 50}}}],
             "matrix": {"environments": [\(ScenarioRunTests.lab)], "distances": [1], "payloads": {"counts": [10], "sizes": [100]}}}
            """, to: d + "/m.json")
        let r = try CLI.run(["validate", d + "/m.json"])
        #expect(r.status != 0)
        #expect(r.stderr.contains("$.transports[0].options.reconnect: reconnect needs userTimeoutMs"), "\(r.stdout)\n\(r.stderr)")
        #expect(r.stderr.contains("never noticed lost"), "\(r.stderr)")

        try CLI.write(
            """
            {"name": "refused", "transports": [{"plugin": "udp", "options": {"reconnect": true}}],
             "matrix": {"environments": [\(ScenarioRunTests.lab)], "distances": [1], "payloads": {"counts": [10], "sizes": [100]}}}
            """, to: d + "/u.json")
        let u = try CLI.run(["validate", d + "/u.json"])
        #expect(u.status != 0)
        #expect(u.stderr.contains("$.transports[0].options.reconnect: reconnect needs keepAlive"), "\(u.stdout)\n\(u.stderr)")
    }
}
