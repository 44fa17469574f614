import Foundation
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem
import Testing

@testable import UWBRanging

/// Two real sessions ranging over loopback UDP.
@Suite(.timeLimit(.minutes(3))) struct NearbySessionTests {
    @Test func rangesAtTheConfiguredRateAfterAStartUpDelay() async throws {
        let (a, b) = try sessionPair(scene: RangingScene(distanceMeters: 4, bearingDegrees: 10))
        let ra = EventRecorder(a), rb = EventRecorder(b)
        let rate = 50.0
        try b.run(NearbyPeerConfiguration(peerToken: a.discoveryToken, role: .responder, updateRateHz: rate))
        let runAt = MonotonicClock.now()
        try a.run(NearbyPeerConfiguration(peerToken: b.discoveryToken, role: .initiator, updateRateHz: rate))
        #expect(await ra.wait(10) { $0.updates.count >= 75 })
        a.invalidate()
        #expect(await rb.wait(10) { $0.removals == [.peerEnded] }, "the responder learns that the initiator ended")

        let u = ra.updates
        let first = Double(u[0].timestamp - runAt) / 1e9
        #expect(first >= 0.2, "first update after \(first) s")
        let span = Double(try #require(u.last).timestamp - u[0].timestamp) / 1e9
        let achieved = Double(u.count - 1) / span
        #expect(abs(achieved - rate) / rate < 0.10, "achieved \(achieved) Hz")
        #expect(u.allSatisfy { $0.discoveryToken == b.discoveryToken })
        #expect(Double(u.filter { $0.distance != nil }.count) / Double(u.count) > 0.9)
        #expect(Double(u.filter { $0.direction != nil }.count) / Double(u.count) > 0.8)
        // The responder learns distances from the initiator's reports, without direction.
        let ub = rb.updates
        // Each poll reports only the latest answered round, so a late response can
        // make the responder skip a round; most arrive.
        #expect(Double(ub.count) >= 0.9 * Double(u.count), "\(ub.count) of \(u.count)")
        #expect(ub.contains { $0.distance != nil } && ub.allSatisfy { $0.direction == nil })
        // Every round was a real exchange: polls out, responses back, round trips measured.
        let d = a.diagnostics
        #expect(d.pollsSent >= u.count && d.responsesReceived == u.count && d.roundTripNanos.count == u.count)
        #expect(b.diagnostics.pollsReceived >= u.count)
        #expect(await ra.wait(10) { $0.finished })
    }

    @Test func automaticRolesAgreeFromTheTokens() async throws {
        let (a, b) = try sessionPair()
        let ra = EventRecorder(a), rb = EventRecorder(b)
        try a.run(NearbyPeerConfiguration(peerToken: b.discoveryToken))
        try b.run(NearbyPeerConfiguration(peerToken: a.discoveryToken))
        #expect(a.isInitiator(try #require(a.configuration)) != b.isInitiator(try #require(b.configuration)))
        #expect(await ra.wait(10) { $0.updates.count >= 5 })
        #expect(await rb.wait(10) { $0.updates.count >= 5 })
        a.invalidate()
        b.invalidate()
    }

    @Test func beyondReachNoDistanceAndATimeoutRemoval() async throws {
        let (a, b) = try sessionPair(scene: RangingScene(distanceMeters: 35), chip: .first)
        let ra = EventRecorder(a), rb = EventRecorder(b)
        try b.run(NearbyPeerConfiguration(peerToken: a.discoveryToken, role: .responder, removalTimeoutSeconds: 0.6))
        try a.run(NearbyPeerConfiguration(peerToken: b.discoveryToken, role: .initiator, updateRateHz: 30, removalTimeoutSeconds: 0.6))
        #expect(await ra.wait(10) { $0.removals == [.timeout] })
        #expect(ra.updates.count > 5, "rounds were answered")
        #expect(ra.updates.allSatisfy { $0.distance == nil && $0.direction == nil })
        #expect(await rb.wait(10) { $0.removals == [.timeout] }, "the responder never got a distance either")
        a.invalidate()
        b.invalidate()
    }

    @Test func aSilentPeerTimesOut() async throws {
        let (a, b) = try sessionPair()
        let ra = EventRecorder(a)
        // b never runs: polls go unanswered, so no update arrives and the peer is removed.
        try a.run(NearbyPeerConfiguration(peerToken: b.discoveryToken, role: .initiator, removalTimeoutSeconds: 0.5))
        #expect(await ra.wait(10) { $0.removals == [.timeout] })
        #expect(ra.updates.isEmpty)
        #expect(a.diagnostics.pollsSent > 0 && a.diagnostics.responsesReceived == 0)
        a.invalidate()
    }

    @Test func theResponderEndingIsPeerEndedForTheInitiator() async throws {
        let (a, b) = try sessionPair()
        let ra = EventRecorder(a)
        try b.run(NearbyPeerConfiguration(peerToken: a.discoveryToken, role: .responder))
        try a.run(NearbyPeerConfiguration(peerToken: b.discoveryToken, role: .initiator))
        #expect(await ra.wait(10) { $0.updates.count >= 3 })
        b.invalidate()
        #expect(await ra.wait(10) { $0.removals == [.peerEnded] })
        a.invalidate()
    }

    @Test func suspensionStopsRangingUntilRunAgain() async throws {
        let (a, b) = try sessionPair()
        let ra = EventRecorder(a), rb = EventRecorder(b)
        let config = NearbyPeerConfiguration(peerToken: b.discoveryToken, role: .initiator, updateRateHz: 40, removalTimeoutSeconds: 0.5)
        let peerConfig = NearbyPeerConfiguration(peerToken: a.discoveryToken, role: .responder, updateRateHz: 40, removalTimeoutSeconds: 0.5)
        try b.run(peerConfig)
        try a.run(config)
        #expect(await ra.wait(10) { $0.updates.count >= 5 })
        a.suspend()
        #expect(throws: NIError.self) { try a.run(config) }
        // The suspended initiator stops polling: the responder times out.
        #expect(await rb.wait(10) { $0.removals == [.timeout] })
        let before = ra.updates.count
        try await Task.sleep(nanoseconds: 200_000_000)
        #expect(ra.updates.count == before, "no updates while suspended")
        a.endSuspension()
        try b.run(peerConfig)
        try a.run(config)
        #expect(await ra.wait(10) { $0.updates.count >= before + 5 })
        let kinds = ra.events.map { e -> String in
            switch e {
            case .wasSuspended: "suspended"
            case .suspensionEnded: "ended"
            default: ""
            }
        }.filter { !$0.isEmpty }
        #expect(kinds == ["suspended", "ended"])
        a.invalidate()
        b.invalidate()
    }

    @Test func runRejectsItsOwnTokenAndAnInvalidatedSession() throws {
        let (a, b) = try sessionPair()
        do {
            try a.run(NearbyPeerConfiguration(peerToken: a.discoveryToken))
            Issue.record("ran with its own token")
        } catch {
            #expect(error.code == .invalidConfiguration)
        }
        #expect(throws: NIError.self) { try a.run(NearbyPeerConfiguration(peerToken: b.discoveryToken, updateRateHz: 0)) }
        a.invalidate()
        do {
            try a.run(NearbyPeerConfiguration(peerToken: b.discoveryToken))
            Issue.record("ran after invalidate")
        } catch {
            #expect(error.code == .sessionFailed)
        }
    }

    @Test func sameSeedSameUpdates() async throws {
        func distances(seed: UInt64) async throws -> [UInt32: Float?] {
            let scene = RangingScene(distanceMeters: 7, bearingDegrees: 30, environment: .innerCity)
            let (a, b) = try sessionPair(scene: scene, seed: seed)
            let ra = EventRecorder(a)
            try b.run(NearbyPeerConfiguration(peerToken: a.discoveryToken, role: .responder, updateRateHz: 50))
            try a.run(NearbyPeerConfiguration(peerToken: b.discoveryToken, role: .initiator, updateRateHz: 50))
            #expect(await ra.wait(10) { $0.updates.count >= 40 })
            a.invalidate()
            b.invalidate()
            // Keyed by round: on a loaded machine a round can miss its window, and
            // the model still advances, so the other rounds keep their samples.
            return Dictionary(ra.updates.prefix(40).map { ($0.round!, $0.distance) }, uniquingKeysWith: { a, _ in a })
        }
        let one = try await distances(seed: 77), two = try await distances(seed: 77), other = try await distances(seed: 78)
        let common = Set(one.keys).intersection(two.keys)
        #expect(common.count >= 35)
        #expect(common.allSatisfy { one[$0]! == two[$0]! })
        let commonOther = Set(one.keys).intersection(other.keys)
        #expect(commonOther.contains { one[$0]! != other[$0]! })
    }
}
