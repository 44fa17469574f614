import Foundation
import Testing

/// Dead-peer detection of udp's `keepAlive` and quic's `idleTimeoutSeconds` in an
/// outage cell, end to end through `peerbench run` over the emulated link; without the
/// options both ride the outage out as before.
@Suite(.serialized, .enabled(if: CLIRunnerDeathTests.canEmulate, "needs root and /dev/net/tun"))
struct ScenarioKeepAliveIdleTimeoutTests {
    /// The link dies at 0.8 s for 3 s: longer than either timeout (1.5 s, 2 s).
    static let matrix = """
        {"name": "dead-peer-test", "rttProbes": 5, "cellTimeoutSeconds": 40,
         "transports": [
           {"plugin": "udp", "label": "udp", "options": {"rateMbps": 8}},
           {"plugin": "udp", "label": "udp-ka", "options": {"rateMbps": 8, "keepAlive": {"intervalMs": 500, "missed": 3}}},
           {"plugin": "quic", "label": "quic"},
           {"plugin": "quic", "label": "quic-idle", "options": {"idleTimeoutSeconds": 2}}],
         "matrix": {"environments": [\(ScenarioRunTests.lab)], "distances": [1],
                    "scenarios": [{"name": "o", "kind": "outage", "atSeconds": 0.8, "durationSeconds": 3}],
                    "payloads": {"counts": [400], "sizes": [16384]}}}
        """

    @Test("outage: udp with keepAlive and quic with idleTimeoutSeconds 2 detect the dead peer on time and are ok; without them both survive")
    func outage() throws {
        let recs = try ScenarioRunTests().run(Self.matrix)
        func scenario(_ label: String) -> [String: Any] { ScenarioRunTests().scenario(recs[label]) }

        // 400 x 16 KiB at 8 Mbit/s take 6.5 s: the outage falls inside the bulk phase.
        let ka = scenario("udp-ka")
        #expect(recs["udp-ka"]?["status"] as? String == "ok", "dying after 1.5 s of silence is what keepAlive predicts: \(recs["udp-ka"] ?? [:])")
        #expect(ka["survived"] as? Bool == false)
        let kaDetect = ka["detect_ms"] as? Double ?? -1
        // Silence counts from the last answer, at most one 500 ms interval before the link died.
        #expect(kaDetect >= 900 && kaDetect <= 2_300, "keepAlive 500 ms x 3: \(ka)")
        #expect((recs["udp-ka"]?["error"] as? String)?.contains("peer lost") == true)

        let idle = scenario("quic-idle")
        #expect(recs["quic-idle"]?["status"] as? String == "ok", "\(recs["quic-idle"] ?? [:])")
        #expect(idle["survived"] as? Bool == false)
        let idleDetect = idle["detect_ms"] as? Double ?? -1
        #expect(idleDetect >= 1_800 && idleDetect <= 3_000, "idle timeout 2 s from the last packet in: \(idle)")
        #expect((recs["quic-idle"]?["error"] as? String)?.contains("idle for 2 s") == true)

        for label in ["udp", "quic"] {
            let s = scenario(label)
            #expect(recs[label]?["status"] as? String == "ok", "\(label): \(recs[label] ?? [:])")
            #expect(s["survived"] as? Bool == true && s["detect_ms"] is NSNull, "\(label) notices nothing: \(s)")
            #expect((s["stall_ms"] as? Double ?? 0) >= 2_500, "\(label): \(s)")
        }
    }
}
