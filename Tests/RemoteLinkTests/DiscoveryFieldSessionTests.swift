import Foundation
import PeerBenchCore
import Testing

@testable import RemoteLink

/// The field session end to end, with the real binary on two "hosts" (namespaces over
/// veth, each with its own avahi-daemon): `serve --advertise`, then `run --peer
/// auto:NAME --interactive` answering from a file, and serve's advertisement gone
/// once serve is killed.
@Suite(.serialized, .timeLimit(.minutes(4))) struct DiscoveryFieldSessionTests {
    /// The bus the next spawned peerbench talks to Avahi over (children inherit it).
    static func useBus(_ bus: String) { setenv("DBUS_SYSTEM_BUS_ADDRESS", bus, 1) }

    @Test(.enabled(if: AvahiInNamespace.available, "needs root, avahi-daemon, avahi-utils and dbus"))
    func advertisedServeFoundByNameAndAnInteractiveRunThatSkipsAPlace() async throws {
        let rig = try RemoteRig(port: 47_820, dataPorts: 47_821...47_830)
        defer { rig.remove() }
        let serverAvahi = try AvahiInNamespace(namespace: rig.hosts.server)
        defer { serverAvahi.stop() }
        let clientAvahi = try AvahiInNamespace(namespace: rig.hosts.client)
        defer { clientAvahi.stop() }
        defer { unsetenv("DBUS_SYSTEM_BUS_ADDRESS") }

        Self.useBus(serverAvahi.systemBus)
        let serve = try rig.startServe(["--advertise", "--advertise-name", "pbl field"])
        #expect(serve.waitFor("advertised by DNS-SD as \"pbl field\" (_peerbench._tcp, port 47820)", seconds: 20))

        // Two places; the answers: go at the first, skip the second.
        let matrix = try rig.write(
            """
            {"name": "field-test", "repetitions": 1, "rttProbes": 5, "cellTimeoutSeconds": 20, "seed": 3,
             "transports": [{"plugin": "tcp", "label": "tcp"}, {"plugin": "udp", "label": "udp"}],
             "matrix": {"environments": ["forest"], "distances": [1, 10], "payloads": {"counts": [50], "sizes": [128]}}}
            """, "field.json")
        let answers = try rig.write("\ns\n", "answers.txt")
        let out = rig.dir + "/out"
        Self.useBus(clientAvahi.systemBus)
        let run = try PeerbenchProcess(
            [
                "run", matrix, "--out", out, "--link", "remote", "--peer", "auto:pbl field",
                "--psk-file", rig.keyFile, "--interactive", "--answers", answers,
            ], in: rig.hosts.client)
        let status = run.wait(seconds: 120)
        #expect(status == 1, "stderr: \(run.stderr)")  // places were skipped: not every cell recorded
        #expect(run.stderr.contains("found auto:pbl field by DNS-SD: \(rig.hosts.serverAddress):47820"))
        #expect(run.stderr.contains("place the peer at 1 m in forest, press Enter (s: skip these 2 cells, q: stop; resume later)"))
        #expect(run.stderr.contains("place the peer at 10 m in forest"))
        #expect(run.stderr.contains("skipped 2 cells (10 m in forest): not recorded; run them later with:"))
        #expect(run.stderr.contains("--interactive"))
        let records = try rig.records(out)
        #expect(records.count == 2)
        for record in records {
            let link = try #require(record["link"] as? [String: Any])
            #expect(record["distance_label"] as? String == "1")
            #expect(record["status"] as? String == "ok")
            #expect(link["mode"] as? String == "remote")
            #expect(link["peer_address"] as? String == rig.hosts.serverAddress)
            #expect((link["interface"] as? String)?.hasPrefix("pbrc") == true)  // the client's veth end
            #expect((link["bytes_up"] as? Int ?? 0) >= 50 * 128)  // the client interface's tx: at least the payload
            #expect((link["packets_up"] as? Int ?? 0) > 0)
            #expect((link["packets_down"] as? Int ?? 0) > 0)  // serve's interface's tx
            #expect(link["rssi_dbm"] is NSNull)  // a veth has no radio
        }

        // serve dies without a chance to clean up: its advertisement goes all the same.
        serve.kill(SIGKILL)
        _ = serve.wait(seconds: 10)
        var left = try Discovery.browse(timeoutSeconds: 1, systemBus: clientAvahi.systemBus)
        let deadline = Date().addingTimeInterval(15)
        while !left.isEmpty && Date() < deadline { left = try Discovery.browse(timeoutSeconds: 1, systemBus: clientAvahi.systemBus) }
        #expect(left.isEmpty, "still advertised: \(left.map(\.name))")
    }
}
