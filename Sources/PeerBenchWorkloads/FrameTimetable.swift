import PeerBenchSystem

/// The sending schedule of an isochronous flow (docs/WORKLOADS.md): frame i is due at
/// `start + i x period`. A sender that falls behind (a write blocked through an
/// outage) takes every frame it owes at once, as a real-time app with a queue would,
/// and the receiver sees them late; it never sends a frame early.
///
/// A state machine apart from the transport, as swift-nio's pending-writes managers
/// are: a thread that may block asks `send(over:)` to sleep to each due time; an event
/// loop asks `takeDue(now:)` what to queue this turn and `nanosUntilDue(now:)` when to
/// turn again.
public struct FrameTimetable: Sendable, Equatable {
    public let frames: Int
    public let periodNanos: UInt64
    public let start: UInt64
    /// The next frame not yet taken.
    public private(set) var next = 0

    public init(frames: Int, periodNanos: UInt64, start: UInt64 = MonotonicClock.now()) {
        self.frames = frames
        self.periodNanos = periodNanos
        self.start = start
    }

    /// When frame `i` is due.
    public func due(_ i: Int) -> UInt64 { start &+ UInt64(i) &* periodNanos }

    /// Every frame has been taken.
    public var isFinished: Bool { next >= frames }

    /// When the next frame not taken is due; nil once every frame has been taken.
    public var nextDue: UInt64? { isFinished ? nil : due(next) }

    /// The frames due at `now` that were not taken yet (empty when none is due).
    public mutating func takeDue(now: UInt64) -> Range<Int> {
        let first = next
        while next < frames, due(next) <= now { next += 1 }
        return first..<next
    }

    /// Nanoseconds until the next frame is due (0 when one is overdue); nil once every
    /// frame has been taken.
    public func nanosUntilDue(now: UInt64) -> UInt64? {
        guard !isFinished else { return nil }
        let d = due(next)
        return d > now ? d - now : 0
    }

    /// Sleep slices while waiting for a frame: `stopped` is asked at least this often.
    public static let stopCheckNanos: UInt64 = 5_000_000

    /// The whole schedule on a thread that may block: sleeps to each due time, then
    /// hands frame `i` to `send`. With `stopped`, sleeps in slices of at most
    /// `stopCheckNanos` and asks it after each. Returns how many frames went out: all,
    /// or those before `stopped` said so.
    public mutating func send(stopped: (() -> Bool)? = nil, over send: (Int) throws -> Void) throws -> Int {
        while !isFinished {
            while true {
                if stopped?() == true { return next }
                let now = MonotonicClock.now()
                guard let wait = nanosUntilDue(now: now), wait > 0 else { break }
                MonotonicClock.sleep(until: now + (stopped == nil ? wait : min(wait, Self.stopCheckNanos)))
            }
            for i in takeDue(now: MonotonicClock.now()) { try send(i) }
        }
        return next
    }
}
