import Foundation
import Testing
import TransportTestSupport

/// quic's `migrate` through `peerbench serve` over `--link remote`: two namespaces of the
/// test's own on a veth pair shaped to 40 Mbit/s, serve in one, `peerbench run` in the
/// other; 0.5 s into a 500 x 16 KiB upload the client's QUIC port is blackholed in its
/// namespace (policy-routing rules forbid every packet from or to it, as a NAT rebinding
/// leaves it). serve's data socket admits only the client's address, and the migration
/// keeps it (a new port), so the same connection carries on: every message once, no
/// reconnect. Without `migrate` the cell times out: `reconnect` re-makes its connection
/// from the same, still dead, socket.
@Suite(.serialized, .enabled(if: geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/sbin/tc"), "needs root, ip and tc"))
struct RemoteQUICMigrationTests {

    /// Server and client namespaces on a veth pair (10.219.x.1 and .2), both ends shaped
    /// to 40 Mbit/s, the client's local-table lookup moved behind the blackhole rules.
    static func makeHosts(_ s: String, _ c: String, subnet: Int) throws {
        let (a, b) = ("pbmgs\(getpid() % 10_000)", "pbmgc\(getpid() % 10_000)")
        let ip = PortBlackhole.ip
        try PortBlackhole.run(ip, ["netns", "add", s])
        try PortBlackhole.run(ip, ["netns", "add", c])
        try PortBlackhole.run(ip, ["link", "add", a, "netns", s, "type", "veth", "peer", "name", b, "netns", c])
        for (ns, dev, addr) in [(s, a, "10.219.\(subnet).1/24"), (c, b, "10.219.\(subnet).2/24")] {
            try PortBlackhole.run(ip, ["-n", ns, "link", "set", "lo", "up"])
            try PortBlackhole.run(ip, ["-n", ns, "addr", "add", addr, "dev", dev])
            try PortBlackhole.run(ip, ["-n", ns, "link", "set", dev, "up"])
            try PortBlackhole.run(
                ip,
                [
                    "netns", "exec", ns, "/usr/sbin/tc", "qdisc", "add", "dev", dev, "root", "tbf", "rate", "40mbit", "burst", "32kb", "latency",
                    "30ms",
                ])
        }
        try PortBlackhole.prepare(namespace: c)
    }

    /// The local port of the client namespace's UDP socket connected to one of serve's data ports.
    static func quicPort(in ns: String, dataPorts: ClosedRange<Int>) throws -> Int? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        p.arguments = ["netns", "exec", ns, "cat", "/proc/net/udp"]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        for line in text.split(separator: "\n").dropFirst() {
            let f = line.split(separator: " ")
            guard f.count > 2, let l = f[1].split(separator: ":").last.flatMap({ Int($0, radix: 16) }),
                let r = f[2].split(separator: ":").last.flatMap({ Int($0, radix: 16) }), dataPorts.contains(r)
            else { continue }
            return l
        }
        return nil
    }

    /// One remote cell with `options`; the client's port cut 0.5 s after it appears.
    func run(_ options: String, timeout: Int) async throws -> [String: Any] {
        let tag = "\(getpid() % 100_000)"
        let (s, c) = ("pbmig-rs-\(tag)", "pbmig-rc-\(tag)")
        let subnet = 10 + Int(getpid() % 200)
        defer {
            try? PortBlackhole.run(PortBlackhole.ip, ["netns", "del", s])
            try? PortBlackhole.run(PortBlackhole.ip, ["netns", "del", c])
        }
        try Self.makeHosts(s, c, subnet: subnet)
        let dir = CLI.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try CLI.run(["psk", "new", dir + "/key.psk"])
        let peer = "10.219.\(subnet).1:47820"
        let serve = Process()
        serve.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        serve.arguments = [
            "netns", "exec", s, PeerbenchBinary.path, "serve", "--listen", peer, "--psk-file", dir + "/key.psk", "--data-ports", "47821-47830",
        ]
        serve.standardOutput = FileHandle.nullDevice
        serve.standardError = FileHandle.nullDevice
        try serve.run()
        defer {
            serve.terminate()
            serve.waitUntilExit()
        }
        try CLI.write(
            """
            {"name": "remote-migrate", "repetitions": 1, "rttProbes": 3, "cellTimeoutSeconds": \(timeout), "seed": 7,
             "transports": [{"plugin": "quic", "label": "q", "options": \(options)}],
             "matrix": {"environments": ["free-field"], "distances": [10], "payloads": {"counts": [500], "sizes": [16384]}}}
            """, to: dir + "/m.json")
        try await Task.sleep(nanoseconds: 1_000_000_000)  // serve listening
        let run = Process()
        run.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        run.arguments = [
            "netns", "exec", c, PeerbenchBinary.path, "run", dir + "/m.json", "--out", dir + "/out", "--link", "remote",
            "--peer", peer, "--psk-file", dir + "/key.psk",
        ]
        run.standardOutput = FileHandle.nullDevice
        run.standardError = FileHandle.nullDevice
        try run.run()
        defer { if run.isRunning { run.terminate() } }
        var port: Int?
        for _ in 0..<3_000 where port == nil {
            port = try Self.quicPort(in: c, dataPorts: 47821...47830)
            if port == nil { try await Task.sleep(nanoseconds: 10_000_000) }
        }
        let cut = try #require(port, "the QUIC client's socket appeared")
        try await Task.sleep(nanoseconds: 500_000_000)
        try PortBlackhole.cut(port: cut, namespace: c)
        while run.isRunning { try await Task.sleep(nanoseconds: 50_000_000) }
        return try #require(try CLI.records(in: dir + "/out").first, "a record")
    }

    @Test("over --link remote: a blackholed port mid-upload, migrate carries the same connection on through serve; reconnect alone times out")
    func migrationThroughServe() async throws {
        let r = try await run(#"{"migrate": true, "reconnect": true, "idleTimeoutSeconds": 2}"#, timeout: 40)
        let d = r["delivery"] as? [String: Any] ?? [:]
        #expect(r["status"] as? String == "ok", "\(r["error"] ?? "")")
        #expect((r["link"] as? [String: Any])?["mode"] as? String == "remote")
        #expect(d["received_messages"] as? Int == 500 && d["duplicated"] as? Int == 0, "every message once: \(d)")
        let quic = (r["extra"] as? [String: Any])?["quic"] as? [String: Any] ?? [:]
        let moves = quic["migrations"] as? [[String: Any]] ?? []
        #expect(moves.count == 1, "\(quic)")
        // Judged dead after the 150 ms floor; serve answers on the new path at once.
        #expect((moves.first?["detect_ms"] as? Double).map { $0 >= 100 && $0 <= 1_200 } == true, "\(moves)")
        #expect((moves.first?["back_ms"] as? Double).map { $0 >= 0 && $0 <= 600 } == true, "\(moves)")
        #expect((r["extra"] as? [String: Any])?["reconnect"] == nil, "no reconnect: \(r["extra"] ?? "")")
        // 1.64 s of payload at 40 Mbit/s; the move costs well under a second.
        #expect((r["bulk_seconds"] as? Double ?? 99) < 3.5, "\(r["bulk_seconds"] ?? "")")

        let without = try await run(#"{"reconnect": true, "idleTimeoutSeconds": 2}"#, timeout: 12)
        #expect(without["status"] as? String == "timeout", "the same socket stays blackholed: \(without["error"] ?? "")")
        print(
            "RemoteQUICMigrationTests: migrate \(moves), bulk \(r["bulk_seconds"] ?? ""); without: \(without["status"] ?? "") \(without["error"] ?? "")"
        )
    }
}
