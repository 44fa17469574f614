import CPeerBenchSystem  // sockets' constants, whichever clang module ends up owning them
import Foundation
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem
import Testing

@testable import RemoteLink

/// What a server on a real network needs from the channel: bad connections cost nothing
/// once their handshake deadline passes, and both directions work at once.
@Suite(.timeLimit(.minutes(2))) struct ControlChannelRobustnessTests {
    /// Open descriptors of this process.
    func openDescriptors() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1 }

    @Test func manyConcurrentBadConnectionsLeaveNoDescriptorBehind() throws {
        let key = try testKey()
        let listener = try LoopbackListener()
        let before = openDescriptors()
        let count = 60
        // Stalled, garbage, wrong-key and hang-up-at-once clients, all at the same time.
        // Stalling clients hold their connection until every handshake has ended.
        let release = DispatchSemaphore(value: 0)
        var clients: [Background<Void>] = []
        for i in 0..<count {
            clients.append(
                Background {
                    switch i % 4 {
                    case 0:
                        _ = try? ControlChannel.connect(to: listener.address, key: try testKey(), timeoutSeconds: 5)
                    default:
                        let raw = try Socket(family: AF_INET, type: Int32(SOCK_STREAM.rawValue))
                        defer { raw.close() }
                        try raw.connect(listener.address)
                        if i % 4 == 1 {
                            var rng = FuzzRandom(seed: UInt64(i))
                            _ = try? rng.bytes(500).withUnsafeBytes { try raw.sendAll($0) }
                        }
                        if i % 4 != 3 { _ = release.wait(timeout: .now() + 30) }
                    }
                })
        }
        let start = MonotonicClock.now()
        var servers: [Background<ControlChannel>] = []
        var connections: [Socket] = []  // held here, so only accept's own close can free them
        for _ in 0..<count {
            let connection = try listener.acceptConnection()
            connections.append(connection)
            servers.append(Background { try ControlChannel.accept(connection, key: key, handshakeTimeoutSeconds: 0.5) })
        }
        var outcomes: [String: Int] = [:]
        for s in servers {
            let e = s.error(within: 20)
            outcomes["\(e.map { "\($0)" } ?? "accepted")", default: 0] += 1
        }
        let elapsed = secondsSince(start)
        for _ in clients { release.signal() }
        for c in clients { _ = c.error(within: 20) }
        print("control robustness: \(count) bad connections -> \(outcomes) in \(String(format: "%.2f", elapsed)) s")
        #expect(outcomes["accepted"] == nil, "\(outcomes)")
        #expect(outcomes["authentication failed (wrong pre-shared key?)"] == count / 4)
        // The stalled ones, and garbage that happens to start like a long TLS record.
        #expect(outcomes["control channel: timed out", default: 0] >= count / 4, "\(outcomes)")
        #expect(elapsed < 10, "every handshake ended near its 0.5 s deadline: \(elapsed) s")
        // Every failed handshake closed its connection: the descriptor count is back.
        #expect(connections.allSatisfy { $0.isClosed })
        usleep(100_000)
        #expect(openDescriptors() <= before + 2, "descriptors before \(before), after \(openDescriptors())")

        // And the listener still serves a good client.
        let good = Background { try ControlChannel.accept(try listener.acceptConnection(), key: key, handshakeTimeoutSeconds: 5) }
        let client = try ControlChannel.connect(to: listener.address, key: key, timeoutSeconds: 5)
        let server = try good.value()
        try client.send(.bye)
        #expect(try server.receive(timeoutSeconds: 5) == .bye)
        client.close()
        server.close()
    }

    @Test func oneThreadSendsWhileAnotherReceivesInBothDirections() throws {
        let key = try testKey()
        let listener = try LoopbackListener()
        let accepted = Background { try ControlChannel.accept(try listener.acceptConnection(), key: key, handshakeTimeoutSeconds: 5) }
        let client = try ControlChannel.connect(to: listener.address, key: key, timeoutSeconds: 5)
        let server = try accepted.value()
        defer {
            client.close()
            server.close()
        }
        let count = 500
        let blob = String(repeating: "z", count: 3_000)
        func sender(_ channel: ControlChannel, _ make: @escaping @Sendable (Int) -> ControlMessage) -> Background<Void> {
            Background { for i in 0..<count { try channel.send(make(i)) } }
        }
        func receiver(_ channel: ControlChannel) -> Background<[Int]> {
            Background {
                var seen: [Int] = []
                for _ in 0..<count {
                    switch try channel.receive(timeoutSeconds: 20) {
                    case .cellRequest(let v), .serverResult(let v): seen.append(v["i"]?.intValue ?? -1)
                    default: seen.append(-2)
                    }
                }
                return seen
            }
        }
        let start = MonotonicClock.now()
        let up = sender(client) { .cellRequest(["i": .number(Double($0)), "blob": .string(blob)]) }
        let down = sender(server) { .serverResult(["i": .number(Double($0)), "blob": .string(blob)]) }
        let atServer = receiver(server), atClient = receiver(client)
        #expect(try atServer.value() == Array(0..<count))
        #expect(try atClient.value() == Array(0..<count))
        try up.value()
        try down.value()
        print("control full duplex: 2 x \(count) messages of ~3 kB in \(String(format: "%.2f", secondsSince(start))) s")
    }
}
