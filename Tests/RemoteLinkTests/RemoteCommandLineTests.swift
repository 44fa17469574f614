import Foundation
import Testing

/// `run --link remote` and `serve` refuse bad command lines with a sentence naming the
/// option, and the documented exit code; nothing here needs a second host.
@Suite(.serialized) struct RemoteCommandLineTests {
    static func run(_ args: [String], in dir: String) throws -> (status: Int32, stderr: String) {
        let p = try PeerbenchProcess(args, in: nil, cwd: dir)
        let status = p.wait(seconds: 60)
        return (status, p.stderr)
    }

    static func folder() throws -> (dir: String, matrix: String, key: String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pbr-cli-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let matrix = dir + "/m.json"
        try Data(RemoteRig.matrix(transports: #"[{"plugin": "tcp", "label": "tcp"}]"#).utf8).write(to: URL(fileURLWithPath: matrix))
        let key = dir + "/k.psk"
        #expect(try PeerbenchProcess(["psk", "new", key], in: nil).wait(seconds: 30) == 0)
        return (dir, matrix, key)
    }

    @Test func runNeedsAPeerAndAKeyForRemoteAndOnlyThen() throws {
        let f = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: f.dir) }
        var r = try Self.run(["run", f.matrix, "--out", "o1", "--link", "remote", "--psk-file", f.key], in: f.dir)
        #expect(r.status == 64 && r.stderr.contains("--link remote needs --peer HOST[:PORT]"), "\(r)")
        r = try Self.run(["run", f.matrix, "--out", "o2", "--link", "remote", "--peer", "127.0.0.1"], in: f.dir)
        #expect(r.status == 64 && r.stderr.contains("--link remote needs --psk-file FILE"), "\(r)")
        r = try Self.run(["run", f.matrix, "--out", "o3", "--link", "none", "--peer", "127.0.0.1"], in: f.dir)
        #expect(r.status == 64 && r.stderr.contains("--peer and --psk-file are for --link remote"), "\(r)")
        r = try Self.run(["run", f.matrix, "--out", "o4", "--link", "remote", "--peer", "127.0.0.1:http", "--psk-file", f.key], in: f.dir)
        #expect(r.status == 2 && r.stderr.contains("--peer") && r.stderr.contains("\"http\""), "\(r)")
    }

    @Test func anUnreachablePeerExits3() throws {
        let f = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: f.dir) }
        // Port 1 on loopback: nothing listens, the connection is refused at once.
        let r = try Self.run(["run", f.matrix, "--out", "o", "--link", "remote", "--peer", "127.0.0.1:1", "--psk-file", f.key], in: f.dir)
        #expect(r.status == 3, "\(r)")
        #expect(r.stderr.contains("127.0.0.1:1"), "\(r.stderr)")
    }

    @Test func serveRefusesBadOptionsNamingThem() throws {
        let f = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: f.dir) }
        var r = try Self.run(["serve", "--psk-file", f.dir + "/missing.psk"], in: f.dir)
        #expect(r.status == 2 && r.stderr.contains("no such key file"), "\(r)")
        r = try Self.run(["serve", "--psk-file", f.key, "--data-ports", "5000-4000"], in: f.dir)
        #expect(r.status == 2 && r.stderr.contains("--data-ports"), "\(r)")
        r = try Self.run(["serve", "--psk-file", f.key, "--listen", "127.0.0.1:47850", "--data-ports", "47800-47900"], in: f.dir)
        #expect(r.status == 2 && r.stderr.contains("includes the control port 47850"), "\(r)")
        r = try Self.run(["serve", "--psk-file", f.key, "--listen", "127.0.0.1:99999"], in: f.dir)
        #expect(r.status == 2 && r.stderr.contains("--listen"), "\(r)")
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: f.key)
        r = try Self.run(["serve", "--psk-file", f.key], in: f.dir)
        #expect(r.status == 2 && r.stderr.contains("chmod 600"), "\(r)")
    }
}
