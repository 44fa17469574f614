import CPeerBenchSystem  // sockets' constants, whichever clang module ends up owning them
import Foundation
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem
import Testing

@testable import RemoteLink

/// While `run --interactive` waits for the peer to be placed, the prompt's keep-alive
/// (`RemoteTestbed.keepAlive`) holds the session inside serve's idle timeout; without
/// it the session is gone when the next place's cell starts. A real `serve` on
/// loopback with a 2-second idle timeout.
@Suite(.serialized, .timeLimit(.minutes(2))) struct FieldPromptKeepAliveTests {
    /// serve on a port the kernel just handed out (loopback is shared with every other
    /// test on the machine, so no fixed port). No cell runs, so no data port opens.
    static func serve(key: String) throws -> (PeerbenchProcess, UInt16) {
        let probe = try Socket(family: AF_INET, type: Int32(SOCK_STREAM.rawValue))
        try probe.bind(SocketAddress(host: "127.0.0.1", port: 0))
        let port = try probe.localAddress().port
        probe.close()
        let p = try PeerbenchProcess(
            [
                "serve", "--listen", "127.0.0.1:\(port)", "--psk-file", key, "--idle-timeout", "2",
                "--data-ports", port < 65_000 ? "\(port + 1)-\(port + 5)" : "\(port - 5)-\(port - 1)",
            ], in: nil)
        guard p.waitFor("listening on", seconds: 30) else {
            p.kill(SIGKILL)
            throw TransportError("serve did not start: \(p.stderr)")
        }
        return (p, port)
    }

    static func connect(port: UInt16, key: String) async throws -> RemoteTestbed {
        try await RemoteTestbed.connect(
            to: SocketAddress(host: "127.0.0.1", port: port), key: RemoteTestbed.loadKey(key),
            plugins: ["tcp"], needed: [], software: "test")
    }

    @Test func keepAliveHoldsTheSessionPastServesIdleTimeout() async throws {
        // As `run` does: writing to the session serve closed must be an error, not SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pbl-keepalive-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let key = dir + "/key.psk"
        #expect(try PeerbenchProcess(["psk", "new", key], in: nil).wait(seconds: 30) == 0)
        let (serve, port) = try Self.serve(key: key)
        defer {
            serve.kill(SIGKILL)
            _ = serve.wait(seconds: 5)
        }
        let link = ResolvedLink(environment: "forest", distanceMeters: 10, distanceLabel: "10")

        // 3.6 s of waiting at the prompt, a keep-alive every 1.2 s: the session survives.
        let kept = try await Self.connect(port: port, key: key)
        for _ in 0..<3 {
            usleep(1_200_000)
            await kept.keepAlive()
        }
        #expect(kept.lostReason == nil)
        _ = try await kept.configure(link, seed: 1)  // the next cell's first exchange
        await kept.shutdown()

        // The same wait without it: serve has closed the session by then.
        usleep(500_000)
        let idle = try await Self.connect(port: port, key: key)
        usleep(3_600_000)
        await #expect(throws: (any Error).self) { _ = try await idle.configure(link, seed: 1) }
        await idle.shutdown()
    }
}
