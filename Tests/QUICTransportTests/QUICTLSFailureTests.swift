import Foundation
import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem
import QUICTransport
import Testing

/// A handshake that must fail says why, quickly: wrong CA, wrong name, expired
/// certificate, unknown ALPN. None of them may hang until the cell deadline.
@Suite(.timeLimit(.minutes(2))) struct QUICTLSFailureTests {
    /// Runs a cell expected to fail and returns the client's error text.
    func failingCell(_ options: KeyValuePairs<String, JSONValue>) async throws -> String {
        let plugin = try makePlugin(options)
        let cell = CellContext.loopback(payload: Payload(count: 10, size: 100), rttProbes: 1)
        let server = try await plugin.startServer(cell)
        defer { server.stop() }
        let started = MonotonicClock.now()
        do {
            _ = try await withTimeout(10) { try await plugin.runClient(cell, server: server.address) }
            Issue.record("the handshake succeeded")
            return ""
        } catch {
            // Fails within the handshake, not at the 30 s handshake timeout.
            #expect(MonotonicClock.elapsed(since: started) < 5_000_000_000, "took \(MonotonicClock.elapsed(since: started).milliseconds) ms")
            return "\(error)"
        }
    }

    /// certtool in `dir` with a template; returns the output file.
    func certtool(_ dir: URL, _ args: [String], template: String? = nil) throws {
        var a = args
        if let template {
            let t = dir.appendingPathComponent("t-\(UUID().uuidString).tmpl")
            try template.write(to: t, atomically: true, encoding: .utf8)
            a += ["--template", t.path]
        }
        let (status, output) = try run("/usr/bin/certtool", a, currentDirectory: dir)
        try #require(status == 0, "certtool \(a): \(output)")
    }

    @Test func wrongCA() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try certtool(dir, ["--generate-privkey", "--key-type=ecdsa", "--outfile", "other-ca-key.pem"])
        try certtool(
            dir, ["--generate-self-signed", "--load-privkey", "other-ca-key.pem", "--outfile", "other-ca.pem"],
            template: "cn = \"Some Other CA\"\nca\ncert_signing_key\nexpiration_days = 30\n")
        let caPath = dir.appendingPathComponent("other-ca.pem").path
        let error = try await failingCell(["caFile": .string(caPath)])
        #expect(error.contains("TLS alert 42 bad certificate"), "\(error)")
        #expect(error.contains("server certificate not issued by the configured CA (\(caPath))"), "\(error)")
    }

    @Test func wrongName() async throws {
        let error = try await failingCell(["serverName": "bench.example.org"])
        #expect(error.contains("TLS alert 42 bad certificate"), "\(error)")
        #expect(error.contains("server certificate does not cover the name \"bench.example.org\""), "\(error)")
    }

    @Test func expiredCertificate() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try certtool(dir, ["--generate-privkey", "--key-type=ecdsa", "--outfile", "expired-key.pem"])
        try certtool(
            dir,
            [
                "--generate-certificate", "--load-privkey", "expired-key.pem",
                "--load-ca-certificate", "\(certsDirectory)/ca.pem", "--load-ca-privkey", "\(certsDirectory)/ca-key.pem",
                "--outfile", "expired.pem",
            ],
            template: """
                cn = "peerbench-server"
                ip_address = "127.0.0.1"
                tls_www_server
                signing_key
                activation_date = "2020-01-01 00:00:00 UTC"
                expiration_date = "2021-01-01 00:00:00 UTC"

                """)
        let error = try await failingCell([
            "certFile": .string(dir.appendingPathComponent("expired.pem").path),
            "keyFile": .string(dir.appendingPathComponent("expired-key.pem").path),
        ])
        #expect(error.contains("TLS alert 42 bad certificate"), "\(error)")
        #expect(error.contains("server certificate has expired"), "\(error)")
    }

    /// Debian's gtlsserver speaks HTTP/3 (ALPN h3), not ours: it must refuse us with
    /// TLS alert 120 and the client must say so.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/sbin/gtlsserver")))
    func unknownALPN() async throws {
        let port = try freeUDPPort()
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/sbin/gtlsserver")
        server.arguments = [
            "-q", "--no-quic-dump", "--no-http-dump", "127.0.0.1", "\(port)",
            "\(certsDirectory)/server-key.pem", "\(certsDirectory)/server.pem",
        ]
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        // gtlsserver ignores SIGTERM.
        defer {
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        try await Task.sleep(nanoseconds: 300_000_000)

        let plugin = try makePlugin()
        let cell = CellContext.loopback(payload: Payload(count: 1, size: 1), rttProbes: 1)
        let started = MonotonicClock.now()
        await #expect {
            _ = try await withTimeout(10) { try await plugin.runClient(cell, server: SocketAddress(host: "127.0.0.1", port: port)) }
        } throws: { error in
            let text = "\(error)"
            return text.contains("TLS alert 120 no application protocol") && text.contains("does not speak ALPN \"peerbench-quic/2\"")
        }
        #expect(MonotonicClock.elapsed(since: started) < 5_000_000_000, "an alert ends it, not the 30 s handshake timeout")
    }

    @Test func nothingListeningTimesOut() async throws {
        let port = try freeUDPPort()
        let plugin = try makePlugin(["handshakeTimeoutSeconds": 0.5])
        let cell = CellContext.loopback(payload: nil, rttProbes: 1)
        let started = MonotonicClock.now()
        await #expect {
            _ = try await withTimeout(10) { try await plugin.runClient(cell, server: SocketAddress(host: "127.0.0.1", port: port)) }
        } throws: { error in
            "\(error)".contains("did not complete within 0.5 s")
        }
        #expect(MonotonicClock.elapsed(since: started) < 3_000_000_000)
    }

    @Test func mutualTLSWithTheBundledClientIdentity() async throws {
        let plugin = try makePlugin(["mutualTLS": true])
        let cell = CellContext.loopback(payload: Payload(count: 5, size: 1000), rttProbes: 2)
        let server = try await plugin.startServer(cell)
        let m = try await withTimeout(10) { try await plugin.runClient(cell, server: server.address) }
        try await server.finish()
        #expect(m.delivery?.receivedBytes == 5000)
    }
}

/// A UDP port nobody listens on right now (bound, read, released).
func freeUDPPort() throws -> UInt16 {
    let s = try Socket(family: AF_INET, type: Int32(SOCK_DGRAM.rawValue))
    try s.bind(SocketAddress(host: "127.0.0.1", port: 0))
    return try s.localAddress().port
}
