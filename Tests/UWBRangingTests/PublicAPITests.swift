import Foundation
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem
import Testing
import UWBRanging  // deliberately not @testable: only what an app developer can use

/// The module as an app developer uses it: two sessions, tokens over a real channel,
/// updates that follow the peer as it moves.
@Suite(.timeLimit(.minutes(3))) struct PublicAPITests {
    @Test func twoAppsSwapTokensRangeAndFollowAMovingPeer() async throws {
        let phone = try NearbySession(
            deviceClass: .phone, chip: .second, radioAddress: "127.0.0.1",
            scene: RangingScene(distanceMeters: 2, bearingDegrees: -20, environment: .freeField), seed: 21)
        let friend = try NearbySession(deviceClass: .phone, chip: .second, radioAddress: "127.0.0.1", seed: 22)

        // Out of band: the friend's app listens, the phone's app connects; both send their token's bytes.
        let listener = try TokenChannelListener(host: "127.0.0.1")
        let deadline = MonotonicClock.now() + 10_000_000_000
        let friendToken = friend.discoveryToken.serialized(), phoneToken = phone.discoveryToken.serialized()
        async let served = BlockingThread.run(name: "friend") {
            guard let c = try listener.accept(deadline: deadline) else { throw TokenChannelError("no phone") }
            return try MessageTokenChannel().serve(friendToken, over: c, deadline: deadline)
        }
        let received = try await BlockingThread.run(name: "phone") {
            let c = try connectTokenChannel(to: listener.address)
            return try MessageTokenChannel().exchange(phoneToken, over: c, start: MonotonicClock.now(), deadline: deadline)
        }
        let friendSide = try await served
        // The phone measures (its scene is the ground truth); the friend's session answers.
        try friend.run(NearbyPeerConfiguration(peerToken: try friendSide.peerToken(), role: .responder, updateRateHz: 30))
        try phone.run(
            NearbyPeerConfiguration(
                peerToken: try DiscoveryToken(serialized: received.peerTokenBytes), role: .initiator,
                updateRateHz: 30))

        // The app's ranging logic: "is my friend within 3 m, and roughly ahead?"
        var near: [Bool] = []
        var moved = false
        for await event in phone.events {
            guard case .didUpdate(let objects) = event, let o = objects.first, let d = o.distance else { continue }
            near.append(d < 3 && (o.horizontalAngle.map { abs($0) < 0.6 } ?? false))
            if near.count == 30 && !moved {
                phone.scene.distanceMeters = 6  // the friend walks away
                moved = true
            }
            // Responses up to 1 s late still count, so rounds polled before the move may
            // arrive after it: leave well over a second of updates after the move.
            if near.count == 90 { phone.invalidate() }
        }
        friend.invalidate()
        #expect(near.count == 90)
        // At 2 m, 20° to the left, the friend is near and ahead; after walking to 6 m, not near.
        #expect(near.prefix(25).filter { $0 }.count >= 20, "\(near)")
        #expect(near.suffix(25).allSatisfy { !$0 }, "\(near)")
    }
}
