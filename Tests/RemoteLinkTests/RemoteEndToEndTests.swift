import CPeerBenchSystem  // sockets' constants, whichever clang module ends up owning them
import Foundation
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `peerbench serve` in one namespace, `peerbench run --link remote` in another, the
/// real binary on both sides, joined by veth.
@Suite(.serialized) struct RemoteEndToEndTests {
    /// The quick matrix's transports plus tls, at a distance in metres ("max" has no
    /// meaning between real hosts). quic and tls need no `serverName`: serve presents
    /// its own certificate and the client pins the digest serve announced (issue 24).
    static let everyPlugin = """
        [{"plugin": "tcp", "label": "tcp", "options": {"noDelay": false}},
         {"plugin": "tcp", "label": "tcp-nodelay", "options": {"noDelay": true}},
         {"plugin": "udp", "label": "udp"},
         {"plugin": "quic", "label": "quic"},
         {"plugin": "tls", "label": "tls"},
         {"plugin": "uwb", "label": "uwb", "options": {"durationSeconds": 1}}]
        """

    @Test func everyPluginRunsOverTheRemoteLinkAndAStrangerGetsNothing() async throws {
        let rig = try RemoteRig()
        defer { rig.remove() }
        try rig.startServe()
        let matrix = try rig.write(RemoteRig.matrix(transports: Self.everyPlugin, count: 200, size: 1_024), "m.json")
        let out = rig.dir + "/out"
        // Meanwhile a third address on the client's host knocks on every data port.
        let stranger = StrangerProbe(hosts: rig.hosts, ports: rig.dataPorts)
        stranger.start()
        let run = try rig.startRun(matrix, out: out)
        let status = run.wait(seconds: 120)
        let heard = stranger.stop()
        #expect(status == 0, "run: \(run.stderr)\nserve: \(rig.serve?.stderr ?? "")")
        let records = try rig.records(out)
        #expect(records.count == 6)
        for r in records {
            let link = r["link"] as? [String: Any] ?? [:]
            let label = (r["transport"] as? [String: Any])?["label"] as? String ?? "?"
            #expect(r["status"] as? String == "ok", "\(label): \(r["error"] ?? "")")
            #expect(link["mode"] as? String == "remote")
            #expect(link["peer_address"] as? String == rig.hosts.serverAddress)
            #expect((link["control_rtt_ms"] as? Double ?? 0) > 0, "\(label): control_rtt_ms \(link["control_rtt_ms"] ?? "nil")")
            #expect(link["delay_ms"] is NSNull, "nothing is emulated between real hosts")
            #expect(r["environment"] as? String == "free-field")
            #expect(r["distance_m"] as? Double == 10)
        }
        let byLabel = Dictionary(records.map { (($0["transport"] as? [String: Any])?["label"] as? String ?? "?", $0) }) { a, _ in a }
        for label in ["tcp", "udp", "quic", "tls"] {
            let delivery = byLabel[label]?["delivery"] as? [String: Any]
            #expect(delivery?["received_messages"] as? Int == 200, "\(label) delivery \(String(describing: delivery))")
        }
        // The udp cell ran authenticated: serve's key reached the client plugin (issue 24).
        let udpExtra = (byLabel["udp"]?["extra"] as? [String: Any])?["udp"] as? [String: Any]
        #expect(
            udpExtra?["authenticated"] as? Bool == true && udpExtra?["unauthenticated_dropped"] as? Int == 0,
            "udp extra: \(String(describing: udpExtra))")
        // quic and tls checked serve's own certificate by the digest it announced.
        for label in ["quic", "tls"] {
            let extra = (byLabel[label]?["extra"] as? [String: Any])?[label] as? [String: Any]
            #expect(extra?["authentication"] as? String == "x509-pinned", "\(label) extra: \(String(describing: extra))")
        }
        // serve reported its side's CPU time (cpu_seconds.server) for every transport it measures.
        for label in ["tcp", "udp", "quic", "tls"] {
            let cpu = byLabel[label]?["cpu_seconds"] as? [String: Any]
            #expect((cpu?["server"] as? Double ?? 0) > 0 && (cpu?["client"] as? Double ?? 0) > 0, "\(label) cpu_seconds \(String(describing: cpu))")
        }
        #expect(
            heard.packetsIn == 0 && heard.connections == 0,
            "a stranger got \(heard.packetsIn) datagrams and \(heard.connections) connections from serve's data ports")
        #expect(heard.sent > 20, "the stranger knocked only \(heard.sent) times")
        let serveLog = rig.serve?.stderr ?? ""
        #expect(serveLog.components(separatedBy: ": ok in ").count - 1 == 6, "one log line per cell: \(serveLog)")
    }

    /// The matrix's rttMethod crosses the control channel and the receiver's span comes
    /// back from serve's side: pipelined probes and receiver_span_mbps between two hosts.
    @Test func pipelinedProbesAndTheReceiversSpanOverTheRemoteLink() async throws {
        let rig = try RemoteRig()
        defer { rig.remove() }
        try rig.startServe()
        let transports = #"[{"plugin": "tcp", "label": "tcp"}, {"plugin": "udp", "label": "udp"}, {"plugin": "quic", "label": "quic"}]"#
        let matrix = try rig.write(RemoteRig.matrix(transports: transports, count: 200, size: 1_024, probes: 200, rttMethod: "pipelined"), "m.json")
        let out = rig.dir + "/out"
        let run = try rig.startRun(matrix, out: out)
        #expect(run.wait(seconds: 120) == 0, "run: \(run.stderr)\nserve: \(rig.serve?.stderr ?? "")")
        let records = try rig.records(out)
        #expect(records.count == 3)
        for r in records {
            let label = (r["transport"] as? [String: Any])?["label"] as? String ?? "?"
            #expect(r["status"] as? String == "ok", "\(label): \(r["error"] ?? "")")
            #expect(r["rtt_method"] as? String == "pipelined", "\(label)")
            #expect((r["rtt_ms"] as? [String: Any])?["count"] as? Int == 200, "\(label)")
            #expect((r["receiver_span_mbps"] as? Double ?? 0) > 0, "\(label): receiver_span_mbps \(r["receiver_span_mbps"] ?? "nil")")
        }
    }

    /// exec names a command for serve to run: refused unless serve allows it, then it
    /// works like any plugin (iperf3 through plugins/iperf3/iperf3-peer).
    @Test func execRunsOnlyWhereServeAllowsIt() async throws {
        let rig = try RemoteRig()
        defer { rig.remove() }
        let transports =
            #"[{"plugin": "exec", "label": "iperf3-tcp", "options": {"server": ["plugins/iperf3/iperf3-peer", "server"], "client": ["plugins/iperf3/iperf3-peer", "client", "--tcp"]}}]"#
        let matrix = try rig.write(RemoteRig.matrix(transports: transports, count: 200, size: 1_024, timeout: 30), "m.json")
        try rig.startServe()
        let refused = try rig.startRun(matrix, out: rig.dir + "/refused")
        #expect(refused.wait(seconds: 60) == 3)
        #expect(refused.stderr.contains("cannot run exec, which the matrix uses"), "\(refused.stderr)")
        rig.serve?.kill(SIGKILL)
        rig.serve?.wait(seconds: 10)
        try rig.startServe(["--allow-exec"])
        let run = try rig.startRun(matrix, out: rig.dir + "/allowed")
        #expect(run.wait(seconds: 90) == 0, "\(run.stderr)\nserve: \(rig.serve?.stderr ?? "")")
        let records = try rig.records(rig.dir + "/allowed")
        #expect(records.first?["status"] as? String == "ok")
        // What iperf3's own JSON reports. Its receiver byte count for a transfer this
        // short is unreliable even over loopback (0 to all of it; exec's, not the link's),
        // so only the sent side and the message count are checked.
        let delivery = records.first?["delivery"] as? [String: Any]
        #expect(delivery?["sent_bytes"] as? Int == 204_800, "\(String(describing: delivery))")
        #expect(delivery?["received_messages"] as? Int == 200, "\(String(describing: delivery))")
    }

    @Test func maxDistanceIsRefusedNamingItsPath() async throws {
        let rig = try RemoteRig()
        defer { rig.remove() }
        let text = RemoteRig.matrix(transports: #"[{"plugin": "tcp", "label": "tcp"}]"#).replacingOccurrences(of: "[10]", with: "[10, \"max\"]")
        let matrix = try rig.write(text, "max.json")
        let run = try rig.startRun(matrix, out: rig.dir + "/out")
        #expect(run.wait(seconds: 30) == 2)
        #expect(run.stderr.contains("$.matrix.distances[1]"), "\(run.stderr)")
        #expect(run.stderr.contains("\"max\" cannot be resolved over --link remote"), "\(run.stderr)")
    }

    @Test func aWrongKeyExits3SayingSo() async throws {
        let rig = try RemoteRig()
        defer { rig.remove() }
        try rig.startServe()
        let other = rig.dir + "/other.psk"
        #expect(try PeerbenchProcess(["psk", "new", other], in: nil).wait(seconds: 30) == 0)
        let matrix = try rig.write(RemoteRig.matrix(transports: #"[{"plugin": "tcp", "label": "tcp"}]"#), "m.json")
        let run = try rig.startRun(matrix, out: rig.dir + "/out", key: other)
        #expect(run.wait(seconds: 60) == 3)
        #expect(run.stderr.contains("authentication failed (wrong pre-shared key?)"), "\(run.stderr)")
        // serve survives it and serves the right key next.
        let good = try rig.startRun(matrix, out: rig.dir + "/out2")
        #expect(good.wait(seconds: 60) == 0, "\(good.stderr)")
    }

    @Test func aSecondClientIsToldBusy() async throws {
        let rig = try RemoteRig()
        defer { rig.remove() }
        try rig.startServe()
        let long = try rig.write(
            RemoteRig.matrix(transports: #"[{"plugin": "uwb", "label": "uwb", "options": {"durationSeconds": 6}}]"#), "long.json")
        let first = try rig.startRun(long, out: rig.dir + "/first")
        #expect(rig.serve!.waitFor("session from \(rig.hosts.clientAddress): started", seconds: 30))
        let short = try rig.write(RemoteRig.matrix(transports: #"[{"plugin": "tcp", "label": "tcp"}]"#), "short.json")
        let second = try rig.startRun(short, out: rig.dir + "/second")
        #expect(second.wait(seconds: 30) == 3)
        #expect(second.stderr.contains("busy"), "\(second.stderr)")
        #expect(first.wait(seconds: 60) == 0, "\(first.stderr)")
    }

    /// Connections that never complete the handshake (no key) do not hold the session:
    /// a client with the key is served meanwhile.
    @Test func strangersStallingTheHandshakeDoNotHoldTheSession() async throws {
        let rig = try RemoteRig()
        defer { rig.remove() }
        try rig.startServe()
        let control = SocketAddress(host: rig.hosts.serverAddress, port: rig.port)
        let stalled = try await BlockingThread.run(name: "stall", namespace: rig.hosts.client) { () throws -> [Socket] in
            try (0..<3).map { _ in
                let s = try Socket(family: AF_INET, type: Int32(SOCK_STREAM.rawValue))
                try s.bind(SocketAddress(host: rig.hosts.strangerAddress, port: 0))
                try s.connect(control)
                return s
            }
        }
        defer { stalled.forEach { $0.close() } }
        try await Task.sleep(nanoseconds: 300_000_000)  // serve has accepted them
        let matrix = try rig.write(RemoteRig.matrix(transports: #"[{"plugin": "tcp", "label": "tcp"}]"#), "m.json")
        let run = try rig.startRun(matrix, out: rig.dir + "/out")
        #expect(run.wait(seconds: 60) == 0, "\(run.stderr)\nserve: \(rig.serve?.stderr ?? "")")
    }

    @Test func aClientKilledMidCellLeavesServeReadyForTheNext() async throws {
        let rig = try RemoteRig()
        defer { rig.remove() }
        try rig.startServe(["--idle-timeout", "5"])
        let long = try rig.write(
            RemoteRig.matrix(transports: #"[{"plugin": "uwb", "label": "uwb", "options": {"durationSeconds": 20}}]"#, timeout: 30), "long.json")
        let victim = try rig.startRun(long, out: rig.dir + "/victim")
        #expect(rig.serve!.waitFor("session from \(rig.hosts.clientAddress): started", seconds: 30))
        try await Task.sleep(nanoseconds: 1_500_000_000)  // into the cell
        let killedAt = Date()
        victim.kill(SIGKILL)
        victim.wait(seconds: 10)
        #expect(rig.serve!.waitFor("ended after", seconds: 10), "\(rig.serve!.stderr)")
        let idleAgain = Date().timeIntervalSince(killedAt)
        #expect(idleAgain < 7, "serve took \(idleAgain) s to drop the dead client (idle timeout 5 s)")
        let matrix = try rig.write(RemoteRig.matrix(transports: #"[{"plugin": "udp", "label": "udp"}]"#), "m.json")
        let next = try rig.startRun(matrix, out: rig.dir + "/next")
        #expect(next.wait(seconds: 60) == 0, "\(next.stderr)\nserve: \(rig.serve!.stderr)")
    }

    @Test func serveKilledMidRunFailsTheCellAndResumeCompletesTheRun() async throws {
        let rig = try RemoteRig()
        defer { rig.remove() }
        try rig.startServe()
        let transports = """
            [{"plugin": "tcp", "label": "tcp"},
             {"plugin": "uwb", "label": "uwb", "options": {"durationSeconds": 8}},
             {"plugin": "udp", "label": "udp"}]
            """
        let matrix = try rig.write(RemoteRig.matrix(transports: transports, timeout: 30), "m.json")
        let out = rig.dir + "/out"
        let run = try rig.startRun(matrix, out: out, ["--order", "sequential"])
        // The tcp cell, then into the long uwb cell: kill serve there.
        #expect(rig.serve!.waitFor(": ok in ", seconds: 60), "\(rig.serve!.stderr)")
        try await Task.sleep(nanoseconds: 2_000_000_000)
        rig.serve!.kill(SIGKILL)
        #expect(run.wait(seconds: 60) == 3)
        #expect(run.stderr.contains("--resume"), "\(run.stderr)")
        var records = try rig.records(out)
        #expect(records.count == 2, "\(records.map { $0["status"] ?? "" })")
        let failed = records.first { $0["status"] as? String == "failed" }
        let failedError = failed?["error"] as? String ?? ""
        #expect(failedError.contains("control session"), "\(failedError)")
        // serve is back: the run completes.
        try rig.startServe()
        let resumed = try PeerbenchProcess(["run", matrix, "--resume", out, "--peer", rig.peer, "--psk-file", rig.keyFile], in: rig.hosts.client)
        let status = resumed.wait(seconds: 60)
        records = try rig.records(out)
        #expect(records.count == 3, "\(resumed.stderr)")
        #expect(records.last?["status"] as? String == "ok")
        #expect(status == 1, "the failed cell keeps the run from being all ok: \(resumed.stderr)")
    }
}

/// Knocks on every data port from the stranger's address (UDP datagrams and TCP
/// connects) until stopped, and counts anything that comes back.
final class StrangerProbe: @unchecked Sendable {
    struct Heard { var sent = 0, packetsIn = 0, connections = 0 }
    private let hosts: VethHosts
    private let ports: ClosedRange<UInt16>
    private let state = Mutex<(stop: Bool, heard: Heard)>((false, Heard()))
    private var task: Task<Void, Never>?

    init(hosts: VethHosts, ports: ClosedRange<UInt16>) {
        self.hosts = hosts
        self.ports = ports
    }

    func start() {
        let (hosts, ports) = (hosts, ports)
        task = Task { [self] in
            _ = try? await BlockingThread.run(name: "stranger", namespace: hosts.client) {
                let udp = try Socket(family: AF_INET, type: Int32(SOCK_DGRAM.rawValue))
                defer { udp.close() }
                try udp.bind(SocketAddress(host: hosts.strangerAddress, port: 0))
                var buf = [UInt8](repeating: 0, count: 2048)
                while !self.state.withLock({ $0.stop }) {
                    for port in ports {
                        let to = SocketAddress(host: hosts.serverAddress, port: port)
                        _ = try? Array("stranger".utf8).withUnsafeBytes { try udp.send($0, to: to) }
                        let tcp = try Socket(family: AF_INET, type: Int32(SOCK_STREAM.rawValue))
                        try tcp.bind(SocketAddress(host: hosts.strangerAddress, port: 0))
                        try tcp.setSendTimeout(nanoseconds: 20_000_000)
                        let connected = (try? tcp.connect(to)) != nil
                        tcp.close()
                        self.state.withLock {
                            $0.heard.sent += 2
                            if connected { $0.heard.connections += 1 }
                        }
                    }
                    while let n = try? buf.withUnsafeMutableBytes({ try udp.receive($0, flags: Int32(MSG_DONTWAIT)) }), n >= 0 {
                        self.state.withLock { $0.heard.packetsIn += 1 }
                    }
                    usleep(50_000)
                }
            }
        }
    }

    func stop() -> Heard {
        state.withLock { $0.stop = true }
        usleep(300_000)  // the last round's replies, if any
        return state.withLock { $0.heard }
    }
}
