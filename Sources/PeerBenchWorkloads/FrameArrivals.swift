public import PeerBenchPlugin

/// What the receiver of an isochronous flow saw: when each frame first arrived, on the
/// receiver's own clock. A frame number at or above `limit` is refused before it sizes
/// anything (it comes off the network), and a second copy of a frame is not counted:
/// a datagram transport can deliver one twice. `report` turns the arrivals into the
/// flow's `FrameReport` against its schedule (`FrameSchedule`), which needs no shared clock.
public struct FrameArrivals: Sendable {
    /// (frame number, arrival), first copies only, in arrival order.
    public private(set) var arrivals: [(seq: Int, at: UInt64)] = []
    /// Frame numbers below it are accepted: the frames the flow has (at most `WorkloadSpec.Limits.frames`).
    public let limit: Int
    /// One bit per frame number; allocated at the first arrival.
    private var seen: [UInt64] = []

    public init(limit: Int = WorkloadSpec.Limits.frames) {
        self.limit = min(max(0, limit), WorkloadSpec.Limits.frames)
    }

    /// How `record` took a frame.
    public enum Outcome: Sendable, Equatable {
        case first, duplicate
        /// Its number is at or above `limit`: not this flow's.
        case outOfBounds
    }

    /// Frame `seq` arrived at `at`.
    @discardableResult
    public mutating func record(seq: UInt64, at: UInt64) -> Outcome {
        guard seq < UInt64(limit) else { return .outOfBounds }
        if seen.isEmpty { seen = [UInt64](repeating: 0, count: (limit + 63) / 64) }
        let word = Int(seq >> 6), bit = UInt64(1) << (seq & 63)
        guard seen[word] & bit == 0 else { return .duplicate }
        seen[word] |= bit
        arrivals.append((Int(seq), at))
        return .first
    }

    /// The flow's report: `sent` frames every `periodNanos`, late beyond `deadlineNanos`.
    public func report(sent: Int, periodNanos: UInt64, deadlineNanos: UInt64) -> FrameReport {
        FrameSchedule.report(arrivals: arrivals, sent: sent, periodNanos: periodNanos, deadlineNanos: deadlineNanos)
    }
}
