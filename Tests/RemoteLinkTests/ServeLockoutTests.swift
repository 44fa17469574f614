import CPeerBenchSystem  // sockets' constants, whichever clang module ends up owning them
import Foundation
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem
import Synchronization
import Testing

@testable import RemoteLink

#if canImport(Glibc)
    import Glibc
#endif

/// No lockout (issue 24, finding 2): ten connections that each dribbled a byte a
/// second held all of serve's handshake slots, 0 of 8 legitimate runs started, the
/// client was told "the peer closed the connection" and serve logged nothing. Real
/// sockets on loopback, the real serve binary; the stranger's connections come from
/// 127.0.0.9.
@Suite(.serialized, .timeLimit(.minutes(3))) struct ServeLockoutTests {
    /// `count` TCP connections from `source` to `target`, each sent one byte a second
    /// (a ClientHello that never completes) and opened again when serve drops it.
    final class SlowConnections: Sendable {
        private let stopped = Mutex(false)
        let opened = Mutex(0)

        init(count: Int, from source: String, to target: SocketAddress) {
            let thread = Thread { [self] in
                var sockets: [Socket?] = Array(repeating: nil, count: count)
                var tick = 0
                while !stopped.withLock({ $0 }) {
                    for i in 0..<count {
                        if sockets[i] == nil {
                            guard let s = try? Socket(family: AF_INET, type: Int32(SOCK_STREAM.rawValue)) else { continue }
                            do {
                                try s.bind(SocketAddress(host: source, port: 0))
                                try s.connect(target)
                                sockets[i] = s
                                opened.withLock { $0 += 1 }
                            } catch {
                                s.close()
                            }
                        } else if tick % 4 == 0 {
                            // One byte of a TLS record header a second; a refused or timed-out slot is reopened.
                            let sent = try? [UInt8(0x16)].withUnsafeBytes { try sockets[i]!.send($0) }
                            // Whatever serve sent (a refusal's alert), then its end or a reset.
                            var closedByServe = false
                            var buffer = [UInt8](repeating: 0, count: 64)
                            while true {
                                let n = recv(sockets[i]!.fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                                if n > 0 { continue }
                                closedByServe = n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)
                                break
                            }
                            if sent == nil || closedByServe {
                                sockets[i]!.close()
                                sockets[i] = nil
                            }
                        }
                    }
                    tick += 1
                    usleep(250_000)
                }
                for s in sockets { s?.close() }
            }
            thread.start()
        }

        /// Ends the connections (the thread closes them within 250 ms); not awaited, so
        /// no thread of the cooperative pool is held.
        func stop() {
            stopped.withLock { $0 = true }
        }
    }

    @Test func aLegitimateClientGetsInWhileAStrangerHoldsManySlowConnections() async throws {
        signal(SIGPIPE, SIG_IGN)
        let serve = try await LocalServe.start()
        defer { serve.stop() }
        let stranger = SlowConnections(count: 20, from: "127.0.0.9", to: serve.address)
        defer { stranger.stop() }
        try await Task.sleep(nanoseconds: 500_000_000)
        for round in 0..<3 {
            let result = await BlockingThread.runCatching(name: "client", namespace: nil) { () throws -> Bool in
                let channel = try serve.helloClient(timeoutSeconds: 5)
                defer { channel.close() }
                try channel.send(.bye)
                return true
            }
            #expect(result == "ok", "round \(round): \(result); log: \(serve.log.suffix(5))")
            _ = await serve.waitForLog("ended after", seconds: 5)
            try await Task.sleep(nanoseconds: 1_200_000_000)
        }
        // The stranger's dropped connections are logged, but not one line each.
        let strangerLines = serve.log.filter { $0.contains("127.0.0.9") }
        #expect(strangerLines.contains { $0.contains("refused") }, "no line for the stranger: \(serve.log)")
        let opened = stranger.opened.withLock { $0 }
        // At least 17 of its 20 were refused at once (3 per address run); one 10 s window: one line.
        #expect(opened >= 20 && strangerLines.count <= 2, "\(strangerLines.count) lines for \(opened) connections: \(strangerLines)")
    }

    @Test func aClientOverItsAddressShareIsToldBusyTryAgain() async throws {
        signal(SIGPIPE, SIG_IGN)
        let serve = try await LocalServe.start()
        defer { serve.stop() }
        let own = SlowConnections(count: 10, from: "127.0.0.1", to: serve.address)
        defer { own.stop() }
        try await Task.sleep(nanoseconds: 500_000_000)
        let key = serve.key, address = serve.address
        let result = await BlockingThread.runCatching(name: "client", namespace: nil) { () throws -> Bool in
            let channel = try ControlChannel.connect(to: address, key: key, timeoutSeconds: 5)
            channel.close()
            return true
        }
        #expect(result.contains("busy") && result.contains("try again"), "\(result)")
    }

    @Test func aSilentConnectionIsDroppedWithinTheHandshakeTimeout() async throws {
        let serve = try await LocalServe.start()
        defer { serve.stop() }
        #expect(ServeLimits().handshakeTimeoutSeconds <= 3)
        let address = serve.address
        let seconds = try await BlockingThread.run(name: "silent", namespace: nil) { () throws -> Double in
            let s = try Socket(family: AF_INET, type: Int32(SOCK_STREAM.rawValue))
            defer { s.close() }
            try s.connect(address)
            try s.setReceiveTimeout(nanoseconds: 15_000_000_000)
            let start = MonotonicClock.now()
            var byte: UInt8 = 0
            _ = recv(s.fd, &byte, 1, 0)
            return Double(MonotonicClock.elapsed(since: start)) / 1e9
        }
        #expect(seconds < 4.5, "a connection that sent nothing was held \(seconds) s")
    }
}

extension BlockingThread {
    /// "ok", or the error's text.
    static func runCatching(name: String, namespace: NetworkNamespace?, _ body: @escaping @Sendable () throws -> Bool) async -> String {
        do { return try await run(name: name, namespace: namespace, body) ? "ok" : "false" } catch { return "\(error)" }
    }
}
