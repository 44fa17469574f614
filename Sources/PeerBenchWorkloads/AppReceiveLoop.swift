import PeerBenchPlugin
import PeerBenchSystem

/// The receiving application's loop (`AppLoop.receiveNanos`): the app takes one message
/// per receive callback and spends `perMessageNanos` on each. A receiver that honours it
/// stamps each message when the app takes it, not when it reached the socket, and reads
/// its socket no faster than the app takes messages (`waitUntilReady()` before each
/// read), so a faster sender fills the kernel's buffer (and, for datagrams, overflows
/// it) as it filled the phone's.
///
/// Times are `MonotonicClock` nanoseconds.
public struct AppReceiveLoop: Sendable, Equatable {
    /// The app's time per message.
    public let perMessageNanos: UInt64
    /// When the app is free to take its next message.
    public private(set) var readyAt: UInt64 = 0
    /// Messages the app took later than they reached the socket, and their wait in all.
    public private(set) var heldMessages = 0
    public private(set) var heldNanos: UInt64 = 0

    /// nil for no cost: the receiver then takes messages as they arrive.
    public init?(perMessageNanos: UInt64) {
        guard perMessageNanos > 0 else { return nil }
        self.perMessageNanos = perMessageNanos
    }

    /// The receiving end of `loop`; nil when it has no receive cost.
    public init?(_ loop: AppLoop) { self.init(perMessageNanos: loop.receiveNanos) }

    /// When the app takes a message that reached the socket at `arrival`: no earlier
    /// than that, and one message's time after the one before.
    public mutating func take(arrivedAt arrival: UInt64) -> UInt64 {
        let taken = max(arrival, readyAt)
        if taken > arrival {
            heldMessages += 1
            heldNanos &+= taken - arrival
        }
        readyAt = taken &+ perMessageNanos
        return taken
    }

    /// Sleeps until the app is free: called before the receiver reads its socket again.
    /// Within `slackNanos` of that it reads at once (a sleep shorter than the scheduler's
    /// wake-up delay would only slow the reader below the app); the stamps still follow
    /// the app's clock.
    public func waitUntilReady(slackNanos: UInt64 = 50_000) {
        if readyAt > MonotonicClock.now() &+ slackNanos { MonotonicClock.sleep(until: readyAt) }
    }
}
