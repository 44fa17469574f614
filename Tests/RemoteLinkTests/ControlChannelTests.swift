import CPeerBenchSystem  // sockets' constants, whichever clang module ends up owning them
import Foundation
import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem
import Testing

@testable import RemoteLink

/// The authenticated control channel on loopback: real TCP, real GnuTLS.
@Suite(.timeLimit(.minutes(2))) struct ControlChannelTests {
    @Test func rightKeyCarriesMessagesBothWaysOverTLS13WithECDHE() throws {
        let key = try testKey()
        let listener = try LoopbackListener()
        let server = Background { () throws -> [ControlMessage] in
            let channel = try ControlChannel.accept(try listener.acceptConnection(), key: key, handshakeTimeoutSeconds: 5)
            defer { channel.close() }
            var got: [ControlMessage] = []
            #expect(channel.negotiated.isTLS13 && channel.negotiated.isDiffieHellmanPSK, "\(channel.negotiated)")
            #expect(channel.identity == "pbc-test")
            #expect(channel.peer.host == "127.0.0.1")
            while true {
                let m = try channel.receive(timeoutSeconds: 10)
                got.append(m)
                switch m {
                case .hello: try channel.send(.hello(.init(protocolVersions: [1], softwareVersion: "server", plugins: ["tcp", "udp"])))
                case .cellRequest(let r): try channel.send(.serverReady(["port": 4242, "echo": r]))
                case .bye: return got
                default: try channel.send(.error(code: ControlErrorCode.protocolViolation, message: "unexpected \(m.type)"))
                }
            }
        }
        let connecting = MonotonicClock.now()
        let client = try ControlChannel.connect(to: listener.address, key: key, timeoutSeconds: 5)
        defer { client.close() }
        print("control channel: TCP connect + TLS 1.3 PSK handshake on loopback in \(String(format: "%.2f", secondsSince(connecting) * 1000)) ms")
        #expect(client.negotiated.version == "TLS1.3")
        #expect(["ECDHE-PSK", "DHE-PSK"].contains(client.negotiated.keyExchange), "\(client.negotiated)")
        #expect(client.negotiated.isTLS13 && client.negotiated.isDiffieHellmanPSK)
        #expect(client.peer == listener.address)

        try client.send(.hello(.init(protocolVersions: [1], softwareVersion: "client", plugins: ["tcp"])))
        #expect(try client.receive(timeoutSeconds: 5) == .hello(.init(protocolVersions: [1], softwareVersion: "server", plugins: ["tcp", "udp"])))
        // Pings are answered by the peer's receive itself.
        let rtt = try client.measureRTT(probes: 5)
        print("control channel: loopback RTT (median of 5 PING/PONG) \(String(format: "%.3f", rtt)) ms")
        #expect(rtt > 0 && rtt < 500, "loopback control RTT: \(rtt) ms")
        for i in 0..<20 {
            let request: JSONValue = ["cell": .number(Double(i)), "blob": .string(String(repeating: "x", count: i * 1_000))]
            try client.send(.cellRequest(request))
            #expect(try client.receive(timeoutSeconds: 5) == .serverReady(["port": 4242, "echo": request]))
        }
        try client.send(.serverResult(["unexpected": true]))
        #expect(try client.receive(timeoutSeconds: 5) == .error(code: 2, message: "unexpected SERVER_RESULT"))
        try client.send(.bye)
        let got = try server.value()
        #expect(got.count == 23)
        #expect(got.first?.type == .hello && got.last == .bye)
        #expect(!got.contains { if case .ping = $0 { true } else { false } }, "PINGs are answered, not delivered")
        // The server closed after BYE: the client sees an orderly end.
        #expect(throws: ControlChannelError.closed) { _ = try client.receive(timeoutSeconds: 5) }
    }

    @Test func wrongKeyFailsOnBothSidesAndDeliversNothing() throws {
        for (serverKey, clientKey) in [
            (try testKey(), try testKey()),
            // Same secret, another identity: refused as well.
            (try testKey("alice"), try PreSharedKey(identity: "mallory", bytes: try testKey("alice").bytes)),
        ] {
            let sameSecret = try PreSharedKey(identity: serverKey.identity, bytes: serverKey.bytes)
            let serverSide = clientKey.identity == "mallory" ? sameSecret : serverKey
            let listener = try LoopbackListener()
            let server = Background { () throws -> ControlMessage in
                let channel = try ControlChannel.accept(try listener.acceptConnection(), key: serverSide, handshakeTimeoutSeconds: 5)
                return try channel.receive(timeoutSeconds: 5)
            }
            let start = MonotonicClock.now()
            var clientError: (any Error)?
            do {
                let c = try ControlChannel.connect(to: listener.address, key: clientKey, timeoutSeconds: 5)
                try c.send(.hello(.init(protocolVersions: [1], softwareVersion: "intruder", plugins: [])))
            } catch { clientError = error }
            #expect(clientError as? ControlChannelError == .authenticationFailed, "client: \(String(describing: clientError))")
            #expect("\(clientError.map { "\($0)" } ?? "")" == "authentication failed (wrong pre-shared key?)")
            let serverError = server.error()
            #expect(serverError as? ControlChannelError == .authenticationFailed, "server: \(String(describing: serverError))")
            #expect(secondsSince(start) < 3, "a wrong key fails at once, not at a timeout")
        }
    }

    @Test func aClientOfferingPlainPSKIsRefused() throws {
        let key = try testKey()
        let listener = try LoopbackListener()
        let server = Background { try ControlChannel.accept(try listener.acceptConnection(), key: key, handshakeTimeoutSeconds: 5) }
        // Plain psk_ke (no Diffie-Hellman): a leaked key would expose the session; never accepted.
        #expect(throws: ControlChannelError.self) {
            _ = try ControlChannel.connect(
                to: listener.address, key: key, timeoutSeconds: 5,
                priority: "NORMAL:-VERS-ALL:+VERS-TLS1.3:-KX-ALL:+PSK")
        }
        #expect(server.error() is ControlChannelError)
    }

    @Test func aSessionWithoutDiffieHellmanIsDroppedEvenIfBothPrioritiesAllowIt() throws {
        let key = try testKey()
        let listener = try LoopbackListener()
        let plain = "NORMAL:-VERS-ALL:+VERS-TLS1.3:-KX-ALL:+PSK"
        let server = Background {
            try ControlChannel.accept(try listener.acceptConnection(), key: key, handshakeTimeoutSeconds: 5, priority: plain)
        }
        let expected = ControlChannelError.failed("the handshake negotiated TLS1.3 with PSK; only TLS 1.3 with ECDHE-PSK or DHE-PSK is allowed")
        #expect(throws: expected) { _ = try ControlChannel.connect(to: listener.address, key: key, timeoutSeconds: 5, priority: plain) }
        #expect(server.error() as? ControlChannelError == expected)
    }

    @Test func garbageInsteadOfAClientHelloGetsAtMostAnAlert() throws {
        let key = try testKey()
        let listener = try LoopbackListener()
        let start = MonotonicClock.now()
        let server = Background { try ControlChannel.accept(try listener.acceptConnection(), key: key, handshakeTimeoutSeconds: 2) }
        let raw = try Socket(family: AF_INET, type: Int32(SOCK_STREAM.rawValue))
        defer { raw.close() }
        try raw.connect(listener.address)
        var rng = FuzzRandom(seed: 12)
        let garbage = rng.bytes(3_000)
        _ = try garbage.withUnsafeBytes { try raw.sendAll($0) }
        let error = server.error(within: 10)
        #expect(error is ControlChannelError && error as? ControlChannelError != .authenticationFailed, "\(String(describing: error))")
        #expect(secondsSince(start) < 2.5, "the server gave up within its handshake timeout")
        // What comes back: nothing, or one TLS alert record (content type 21), then the end.
        var reply: [UInt8] = []
        try raw.setReceiveTimeout(nanoseconds: 2_000_000_000)
        var buffer = [UInt8](repeating: 0, count: 4096)
        // The server closes with our garbage unread, so the kernel may answer with a reset.
        while let n = try? buffer.withUnsafeMutableBytes({ try raw.receive($0) }), n > 0 { reply += buffer[..<n] }
        #expect(reply.isEmpty || (reply[0] == 0x15 && reply.count <= 7), "reply: \(reply)")
    }

    @Test func aStalledOrDribblingClientTimesOutWithinTheHandshakeTimeout() throws {
        let key = try testKey()
        for dribble in [false, true] {
            let listener = try LoopbackListener()
            let start = MonotonicClock.now()
            let server = Background { try ControlChannel.accept(try listener.acceptConnection(), key: key, handshakeTimeoutSeconds: 1) }
            let raw = try Socket(family: AF_INET, type: Int32(SOCK_STREAM.rawValue))
            defer { raw.close() }
            try raw.connect(listener.address)
            let dribbler = Background { () throws -> Void in
                guard dribble else { return }
                // A TLS record header announcing a large handshake record, then a byte every 100 ms.
                let bytes: [UInt8] = [0x16, 0x03, 0x01, 0x02, 0x00] + [UInt8](repeating: 0x01, count: 40)
                for b in bytes {
                    guard (try? [b].withUnsafeBytes({ try raw.sendAll($0) })) == true else { return }
                    usleep(100_000)
                }
            }
            let error = server.error(within: 10)
            let elapsed = secondsSince(start)
            #expect(error as? ControlChannelError == .timedOut, "dribble \(dribble): \(String(describing: error))")
            #expect(elapsed >= 0.9 && elapsed < 3, "dribble \(dribble): gave up after \(elapsed) s")
            raw.close()
            _ = dribbler.error(within: 10)
        }
    }

    @Test func receiveTimesOutClosesAndRejectsGarbageFrames() throws {
        let key = try testKey()
        let listener = try LoopbackListener()
        let server = Background { () throws -> ControlChannel in
            try ControlChannel.accept(try listener.acceptConnection(), key: key, handshakeTimeoutSeconds: 5)
        }
        let client = try ControlChannel.connect(to: listener.address, key: key, timeoutSeconds: 5)
        let serverChannel = try server.value()
        // A silent peer: the wait ends at its limit.
        let start = MonotonicClock.now()
        #expect(throws: ControlChannelError.timedOut) { _ = try serverChannel.receive(timeoutSeconds: 0.3) }
        let waited = secondsSince(start)
        #expect(waited >= 0.29 && waited < 2, "waited \(waited) s")
        // An authenticated peer sending bytes that are not a frame: a typed protocol error.
        try client.write([0x47, 0x45, 0x54, 0x20] + [UInt8](repeating: 0, count: 10))
        #expect(throws: ControlChannelError.protocolError(.badMagic(0x47, 0x45))) { _ = try serverChannel.receive(timeoutSeconds: 5) }
        // close() from another thread wakes a blocked receive at once.
        let blocked = Background { try client.receive(timeoutSeconds: 20) }
        usleep(200_000)
        let closing = MonotonicClock.now()
        client.close()
        #expect(blocked.error(within: 5) as? ControlChannelError == .closed)
        #expect(secondsSince(closing) < 2)
        #expect(throws: ControlChannelError.closed) { try client.send(.bye) }
        // The peer sees the end of the stream.
        #expect(throws: ControlChannelError.self) { _ = try serverChannel.receive(timeoutSeconds: 5) }
        serverChannel.close()
    }

    @Test func worksOverIPv6() throws {
        let key = try testKey()
        let listener = try LoopbackListener(host: "::1")
        let server = Background { () throws -> (SocketAddress, ControlMessage) in
            let channel = try ControlChannel.accept(try listener.acceptConnection(), key: key, handshakeTimeoutSeconds: 5)
            defer { channel.close() }
            return (channel.peer, try channel.receive(timeoutSeconds: 5))
        }
        let client = try ControlChannel.connect(to: listener.address, key: key, timeoutSeconds: 5)
        defer { client.close() }
        try client.send(.bye)
        let (peer, message) = try server.value()
        #expect(peer.host == "::1" && peer.isIPv6 && message == .bye)
        #expect("\(client.peer)" == "[::1]:\(listener.address.port)")
    }

    /// A program using the library need not ignore SIGPIPE: writing to a peer that hung
    /// up throws. (Without GNUTLS_NO_SIGNAL this test ends the test process by SIGPIPE,
    /// as a filtered run of the RTT suite once did.)
    @Test func writingToAPeerThatHungUpThrowsInsteadOfRaisingSIGPIPE() throws {
        let previous = signal(SIGPIPE, SIG_DFL)
        defer { signal(SIGPIPE, previous) }
        let key = try testKey()
        let listener = try LoopbackListener()
        let server = Background { try ControlChannel.accept(try listener.acceptConnection(), key: key, handshakeTimeoutSeconds: 5) }
        let client = try ControlChannel.connect(to: listener.address, key: key, timeoutSeconds: 5)
        defer { client.close() }
        try server.value().close()
        // The first write after the hang-up still reaches the kernel and draws the peer's
        // RST; a later one fails with EPIPE, which must come back as an error.
        var failure: (any Error)?
        for _ in 0..<200 where failure == nil {
            do { try client.send(.pong(1)) } catch { failure = error }
            usleep(5_000)
        }
        #expect(failure != nil, "200 writes to a closed peer all succeeded")
    }

    @Test func connectingToNothingFailsClearly() throws {
        let listener = try LoopbackListener()
        let address = listener.address
        listener.socket.close()
        do {
            _ = try ControlChannel.connect(to: address, key: try testKey(), timeoutSeconds: 2)
            Issue.record("connected to a closed port")
        } catch {
            #expect("\(error)" == "control channel: cannot connect to \(address): Connection refused")
        }
    }
}
