import Foundation
import Testing

/// Session resumption between two hosts (`peerbench serve` and `run --link remote`):
/// serve's server for the cell keeps the ticket key (and the anti-replay memory) for
/// the cell's lifetime, so the options work as on the emulated link, also with the
/// client checking serve's own certificate by its pinned digest.
@Suite(.serialized) struct RemoteResumptionTests {
    @Test func ticketsAndZeroRTTWorkOverTheRemoteLink() async throws {
        let rig = try RemoteRig()
        defer { rig.remove() }
        try rig.startServe()
        let transports = #"""
            [{"plugin": "tls", "label": "tls-tickets", "options": {"sessionTickets": true}},
             {"plugin": "quic", "label": "quic-0rtt", "options": {"resumption": true, "zeroRTT": true}}]
            """#
        let matrix = try rig.write(RemoteRig.matrix(transports: transports, count: 50, size: 1_024, probes: 3), "m.json")
        let out = rig.dir + "/out"
        let run = try rig.startRun(matrix, out: out)
        #expect(run.wait(seconds: 120) == 0, "run: \(run.stderr)\nserve: \(rig.serve?.stderr ?? "")")
        let records = try rig.records(out)
        #expect(records.count == 2)
        for r in records {
            let label = (r["transport"] as? [String: Any])?["label"] as? String ?? "?"
            #expect(r["status"] as? String == "ok", "\(label): \(r["error"] ?? "")")
            let extra = r["extra"] as? [String: Any] ?? [:]
            let own = (extra["tls"] ?? extra["quic"]) as? [String: Any] ?? [:]
            #expect(own["resumed"] as? Bool == true, "\(label): \(own)")
            #expect(own["authentication"] as? String == "x509-pinned", "\(label): serve's own certificate, by its digest")
            if label == "quic-0rtt" { #expect(own["early_data_accepted"] as? Bool == true, "\(own)") }
        }
    }
}
