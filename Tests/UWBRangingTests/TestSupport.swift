import Foundation
import PeerBenchCore
import Synchronization

@testable import UWBRanging

/// Consumes a session's event stream for the whole test (a stream has one consumer,
/// and dropping its iterator ends it) and lets the test wait for conditions.
final class EventRecorder: Sendable {
    private let state = Mutex<(events: [NearbySession.Event], finished: Bool)>(([], false))

    init(_ session: NearbySession) {
        Task {
            for await e in session.events { self.state.withLock { $0.events.append(e) } }
            self.state.withLock { $0.finished = true }
        }
    }

    var events: [NearbySession.Event] { state.withLock { $0.events } }
    var finished: Bool { state.withLock { $0.finished } }

    var updates: [NearbyObject] {
        events.flatMap { (e: NearbySession.Event) -> [NearbyObject] in
            if case .didUpdate(let o) = e { return o }
            return []
        }
    }

    var removals: [NearbyObject.RemovalReason] {
        events.compactMap { (e: NearbySession.Event) -> NearbyObject.RemovalReason? in
            if case .didRemove(_, let r) = e { return r }
            return nil
        }
    }

    /// Polls until `condition` holds or `seconds` pass; returns whether it held.
    @discardableResult
    func wait(_ seconds: Double, until condition: (EventRecorder) -> Bool) async -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if condition(self) { return true }
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
        return condition(self)
    }
}

/// Two sessions on loopback that have swapped tokens (in memory: the channels have their own tests).
func sessionPair(
    scene: RangingScene = RangingScene(distanceMeters: 4), peer: DeviceClass = .phone, chip: ChipGeneration = .first,
    seed: UInt64 = 11
) throws -> (initiator: NearbySession, responder: NearbySession) {
    let a = try NearbySession(deviceClass: .phone, chip: chip, radioAddress: "127.0.0.1", scene: scene, seed: seed)
    let b = try NearbySession(deviceClass: peer, chip: chip, radioAddress: "127.0.0.1", seed: seed ^ 0xFF)
    return (a, b)
}
