import Foundation
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem
import Synchronization
import Testing

@testable import UWBRanging

#if canImport(Glibc)
    import Glibc
#endif

/// A responder written from docs/protocol/uwb.md alone (raw bytes, none of the
/// module's frame code), slow on purpose: it holds every response for 120 ms,
/// longer than six rounds at 50 Hz, as an off-channel AWDL period would.
@Suite(.timeLimit(.minutes(3))) struct RangingProtocolTests {
    static func be32(_ b: ArraySlice<UInt8>) -> UInt32 { b.reduce(0) { $0 << 8 | UInt32($1) } }

    @Test func lateResponsesStillCountAndTheRateHolds() async throws {
        let radio = try Socket(family: AF_INET, type: Int32(SOCK_DGRAM.rawValue))
        try radio.bind(SocketAddress(host: "127.0.0.1", port: 0))
        var g = SeededRandom(seed: 5)
        let fake = DiscoveryToken.generate(
            deviceClass: .phone, chip: .first,
            rangingEndpoint: SocketAddress(host: "127.0.0.1", port: try radio.localAddress().port), using: &g)
        let phone = try NearbySession(radioAddress: "127.0.0.1", scene: RangingScene(distanceMeters: 2), seed: 9)
        let recorder = EventRecorder(phone)
        let fakeID = fake.sessionIDBytes, phoneID = phone.discoveryToken.sessionIDBytes
        let phoneAddress = phone.discoveryToken.rangingEndpoint
        let holdNanos: UInt64 = 120_000_000
        let started = Mutex(false), stop = Mutex(false)

        let responder = Task {
            try await BlockingThread.run(name: "slow-responder") { () -> Int in
                var queue: [(due: UInt64, bytes: [UInt8])] = []
                var answered = 0
                var buffer = [UInt8](repeating: 0, count: 512)
                started.withLock { $0 = true }
                // Bounded even if the test throws before it says stop.
                let giveUp = MonotonicClock.now() + 30_000_000_000
                while !stop.withLock({ $0 }), MonotonicClock.now() < giveUp {
                    let now = MonotonicClock.now()
                    while let first = queue.first, first.due <= now {
                        _ = try first.bytes.withUnsafeBytes { try radio.send($0, to: phoneAddress) }
                        queue.removeFirst()
                        answered += 1
                    }
                    let wait = queue.first.map { $0.due > now ? $0.due - now : 0 } ?? 5_000_000
                    guard try radio.waitReadable(timeoutNanos: max(wait, 1_000_000)) else { continue }
                    guard let n = try buffer.withUnsafeMutableBytes({ try radio.receive($0, flags: Int32(MSG_DONTWAIT)) }), n == 60 else { continue }
                    let b = Array(buffer[0..<n])
                    // Header: "PBUR", version 1, type 1 = POLL, sender at 12, receiver at 28.
                    guard b[0..<4] == [0x50, 0x42, 0x55, 0x52], b[4] == 1, b[5] == 1,
                        Array(b[12..<28]) == phoneID, Array(b[28..<44]) == fakeID
                    else { continue }
                    // RESPONSE: same round (8..<12), sender/receiver swapped, poll timestamp echoed, turnaround.
                    var r: [UInt8] = [0x50, 0x42, 0x55, 0x52, 1, 2, 0, 0] + b[8..<12] + fakeID + phoneID + b[44..<52]
                    r += [0, 0, 0, 0]
                    #expect(r.count == 56)
                    queue.append((MonotonicClock.now() + holdNanos, r))
                }
                return answered
            }
        }
        defer { stop.withLock { $0 = true } }
        let startBy = MonotonicClock.now() + 10_000_000_000
        while !started.withLock({ $0 }) {
            try #require(MonotonicClock.now() < startBy, "the responder thread did not start")
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        try phone.run(NearbyPeerConfiguration(peerToken: fake, role: .initiator, updateRateHz: 50, removalTimeoutSeconds: 5))
        #expect(await recorder.wait(10) { $0.updates.count >= 50 })
        phone.invalidate()
        stop.withLock { $0 = true }
        let answered = try await responder.value
        #expect(answered >= 50)

        let u = recorder.updates
        let rate = Double(u.count - 1) / (Double(try #require(u.last).timestamp - u[0].timestamp) / 1e9)
        #expect(abs(rate - 50) / 50 < 0.10, "achieved \(rate) Hz with 120 ms round trips")
        let rtts = phone.diagnostics.roundTripNanos
        #expect(rtts.allSatisfy { $0 >= holdNanos }, "every round trip includes the hold")
        #expect(recorder.removals.isEmpty)
        // Rounds arrive in order and without gaps: each response matched its own round.
        let rounds = u.compactMap(\.round)
        #expect(rounds == Array(rounds[0]...(rounds[0] + UInt32(rounds.count - 1))))
    }
}
