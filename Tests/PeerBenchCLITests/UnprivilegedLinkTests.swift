import Foundation
import Testing

/// `--link emulated` without root: through an unprivileged user namespace where the
/// system allows it, otherwise a clear message. Runs the binary as `nobody`.
@Suite(.serialized) struct UnprivilegedLinkTests {
    /// Needs root (to act as nobody) and a build folder nobody can reach.
    static let canRun: Bool = {
        guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { return false }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        p.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", "/bin/test", "-x", CLI.binary]
        guard (try? p.run()) != nil else { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }()

    /// Runs peerbench as uid/gid 65534 (nobody).
    func runAsNobody(_ args: [String]) throws -> CLIResult {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        p.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", CLI.binary] + args
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return CLIResult(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }

    /// A folder nobody can write, holding a two-cell matrix.
    func workspace() throws -> String {
        let d = CLI.tempDir()
        chmod(d, 0o777)
        try CLI.write(
            #"{"rttProbes": 5, "transports": [{"plugin": "tcp"}, {"plugin": "udp"}], "matrix": {"environments": ["free-field"], "distances": [10], "payloads": {"counts": [100], "sizes": [1400]}}}"#,
            to: d + "/m.json")
        chmod(d + "/m.json", 0o644)
        return d
    }

    /// Sets /dev/net/tun's mode for the body and restores it afterwards.
    func withTunMode<T>(_ mode: mode_t, _ body: () throws -> T) throws -> T {
        var st = stat()
        guard stat("/dev/net/tun", &st) == 0 else { throw CLITestSkip("no /dev/net/tun") }
        chmod("/dev/net/tun", mode)
        defer { chmod("/dev/net/tun", st.st_mode & 0o7777) }
        return try body()
    }

    @Test(.enabled(if: canRun)) func withoutTunAccessTheMessageSaysSudoOrLinkNone() throws {
        let d = try workspace()
        let r = try withTunMode(0o600) { try runAsNobody(["run", d + "/m.json", "--out", d + "/out"]) }
        #expect(r.status == 3)
        #expect(r.stderr.contains("run peerbench with sudo, or use --link none"), "\(r.stderr)")
    }

    @Test(.enabled(if: canRun)) func withTunAccessItRunsInAUserNamespace() throws {
        let d = try workspace()
        let before = try String(contentsOfFile: "/proc/net/dev", encoding: .utf8)
        let r = try withTunMode(0o666) { try runAsNobody(["run", d + "/m.json", "--out", d + "/out"]) }
        #expect(r.status == 0, "\(r.stderr)")
        let records = try CLI.records(in: d + "/out")
        #expect(records.count == 2)
        for rec in records {
            let link = rec["link"] as! [String: Any]
            #expect(link["mode"] as? String == "emulated")
            #expect((link["packets_up"] as? Int ?? 0) > 100, "the emulator carried the traffic")
        }
        // Files belong to the user, and the host's own network is untouched.
        var st = stat()
        stat(d + "/out/records.jsonl", &st)
        #expect(st.st_uid == 65534)
        #expect(try String(contentsOfFile: "/proc/net/dev", encoding: .utf8).split(separator: "\n").count == before.split(separator: "\n").count)
    }
}

struct CLITestSkip: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
