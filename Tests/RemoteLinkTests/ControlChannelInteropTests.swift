import Foundation
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem
import Testing

@testable import RemoteLink

/// The channel is standard TLS 1.3 with an external PSK: OpenSSL, an independent
/// implementation, talks to it with nothing but the key file's identity and hex key.
@Suite(.timeLimit(.minutes(2))) struct ControlChannelInteropTests {
    static let openssl = "/usr/bin/openssl"

    /// Runs openssl with `arguments`, feeding `input` on stdin and closing it after `holdSeconds`.
    func openssl(_ arguments: [String], input: [UInt8], holdSeconds: Double) throws -> (status: Int32, stdout: [UInt8], stderr: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.openssl)
        p.arguments = arguments
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        p.standardInput = stdin
        p.standardOutput = stdout
        p.standardError = stderr
        try p.run()
        stdin.fileHandleForWriting.write(Data(input))
        let err = Background { String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }
        let out = Background { [UInt8](stdout.fileHandleForReading.readDataToEndOfFile()) }
        usleep(UInt32(holdSeconds * 1e6))
        try stdin.fileHandleForWriting.close()
        p.waitUntilExit()
        return (p.terminationStatus, try out.value(), try err.value())
    }

    @Test func opensslClientExchangesFramesWithOurServer() throws {
        let key = try testKey("openssl-peer")
        let listener = try LoopbackListener()
        let server = Background { () throws -> (ControlMessage, ControlChannel.Negotiated) in
            let channel = try ControlChannel.accept(try listener.acceptConnection(), key: key, handshakeTimeoutSeconds: 10)
            defer { channel.close() }
            let hello = try channel.receive(timeoutSeconds: 10)
            try channel.send(.hello(.init(protocolVersions: [1], softwareVersion: "server", plugins: ["tcp"])))
            return (hello, channel.negotiated)
        }
        let hello = try ControlFraming.encode(.hello(.init(protocolVersions: [1], softwareVersion: "openssl", plugins: [])))
        let r = try openssl(
            [
                "s_client", "-connect", "\(listener.address)", "-tls1_3", "-psk", key.hex,
                "-psk_identity", key.identity, "-quiet",
            ], input: hello, holdSeconds: 1.5)
        let (received, negotiated) = try server.value()
        #expect(received == .hello(.init(protocolVersions: [1], softwareVersion: "openssl", plugins: [])), "openssl: \(r.stderr)")
        #expect(negotiated.isTLS13 && negotiated.isDiffieHellmanPSK, "\(negotiated)")
        var decoder = ControlFrameDecoder()
        #expect(try decoder.feed(r.stdout) == [.hello(.init(protocolVersions: [1], softwareVersion: "server", plugins: ["tcp"]))])
    }

    @Test func opensslClientWithAnotherKeyIsRefused() throws {
        let key = try testKey("openssl-peer")
        let listener = try LoopbackListener()
        let server = Background { try ControlChannel.accept(try listener.acceptConnection(), key: key, handshakeTimeoutSeconds: 10) }
        let other = try testKey("openssl-peer")
        let r = try openssl(
            [
                "s_client", "-connect", "\(listener.address)", "-tls1_3", "-psk", other.hex,
                "-psk_identity", other.identity, "-quiet",
            ], input: [], holdSeconds: 0.5)
        #expect(server.error() as? ControlChannelError == .authenticationFailed)
        #expect(r.status != 0)
        #expect(r.stderr.contains("decrypt error"), "openssl: \(r.stderr)")
    }

    @Test func ourClientTalksToAnOpensslServer() throws {
        let key = try testKey("openssl-peer")
        // A port the kernel just handed out and took back: free for openssl to bind.
        let port = try LoopbackListener().address.port
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.openssl)
        p.arguments = [
            "s_server", "-accept", "127.0.0.1:\(port)", "-tls1_3", "-nocert", "-psk", key.hex,
            "-psk_identity", key.identity, "-quiet", "-naccept", "1",
        ]
        let stdin = Pipe(), stdout = Pipe()
        p.standardInput = stdin
        p.standardOutput = stdout
        p.standardError = FileHandle.nullDevice
        try p.run()
        defer {
            if p.isRunning { p.terminate() }
            p.waitUntilExit()
        }
        let start = MonotonicClock.now()
        var channel: ControlChannel?
        while channel == nil && secondsSince(start) < 10 {
            do { channel = try ControlChannel.connect(to: SocketAddress(host: "127.0.0.1", port: port), key: key, timeoutSeconds: 5) } catch {
                guard "\(error)".contains("refused") else { throw error }
                usleep(100_000)
            }
        }
        let client = try #require(channel)
        #expect(client.negotiated.isTLS13 && client.negotiated.isDiffieHellmanPSK, "\(client.negotiated)")
        // openssl relays our frame to its stdout and its stdin to us.
        try client.send(.ping(77))
        let pong = try ControlFraming.encode(.pong(77))
        stdin.fileHandleForWriting.write(Data(pong))
        #expect(try client.receive(timeoutSeconds: 5) == .pong(77))
        client.close()
        try stdin.fileHandleForWriting.close()
        p.waitUntilExit()
        let relayed = [UInt8](stdout.fileHandleForReading.readDataToEndOfFile())
        #expect(relayed.starts(with: try ControlFraming.encode(.ping(77))), "\(relayed)")
    }
}
