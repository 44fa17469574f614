/// What a workload other than the upload measured (docs/WORKLOADS.md), beside the
/// fields every cell has: the counts of each direction, and the frames of an
/// isochronous flow.

/// The bulk counts and time of each direction that moved data.
public struct DirectionalDelivery: Sendable, Codable, Equatable {
    public struct Flow: Sendable, Codable, Equatable {
        public var delivery: Delivery
        /// From the start of the direction's transfer to the receiver's last byte (up:
        /// the server's REPORT read; down: the last message read), nanoseconds.
        public var nanos: UInt64
        public init(delivery: Delivery, nanos: UInt64) {
            self.delivery = delivery
            self.nanos = nanos
        }
        public var throughputMbps: Double? { nanos > 0 ? Double(delivery.receivedBytes) * 8 / Double(nanos) * 1e3 : nil }
    }
    public var up: Flow?
    public var down: Flow?
    public init(up: Flow? = nil, down: Flow? = nil) {
        self.up = up
        self.down = down
    }

    /// Both directions as one: counts summed, the longer time (they ran at once).
    public var total: (delivery: Delivery, nanos: UInt64)? {
        let flows = [up, down].compactMap { $0 }
        guard let first = flows.first else { return nil }
        return (flows.dropFirst().map(\.delivery).reduce(first.delivery, +), flows.map(\.nanos).max()!)
    }
}

/// The frames of an isochronous flow as their receiver(s) saw them. Each frame's delay
/// is measured against its schedule (`FrameSchedule`), so no clock is shared.
public struct FrameReport: Sendable, Codable, Equatable {
    public var sent: Int
    public var received: Int
    /// Received more than `deadlineNanos` after their schedule.
    public var late: Int
    public var deadlineNanos: UInt64
    /// Each received frame's delay against its schedule, nanoseconds, in arrival order.
    public var delayNanos: [UInt64]

    public init(sent: Int, received: Int, late: Int, deadlineNanos: UInt64, delayNanos: [UInt64]) {
        self.sent = sent
        self.received = received
        self.late = late
        self.deadlineNanos = deadlineNanos
        self.delayNanos = delayNanos
    }

    /// Frames that never arrived.
    public var lost: Int { max(0, sent - received) }

    /// Two directions' frames as one report.
    public static func + (a: FrameReport, b: FrameReport) -> FrameReport {
        FrameReport(
            sent: a.sent + b.sent, received: a.received + b.received, late: a.late + b.late,
            deadlineNanos: a.deadlineNanos, delayNanos: a.delayNanos + b.delayNanos)
    }

    enum CodingKeys: String, CodingKey {
        case sent, received, late, deadlineNanos = "deadline_ns", delayNanos = "delay_ns"
    }
}

/// The sending schedule of an isochronous flow and the delays of the frames that
/// arrived: frame i is due at `t0 + i x period` on the sender. The receiver does not
/// know `t0` on its own clock, so the schedule is anchored at the frame that came
/// soonest relative to it: delay_i = (arrival_i - i x period) - min_j (arrival_j - j x period).
/// Every delay is then >= 0, the least-delayed frame's is 0, and a frame held up by an
/// outage shows by how much it missed its slot; no clock is shared between the hosts.
public enum FrameSchedule {
    /// `arrivals` as (sequence, arrival time on the receiver's monotonic clock).
    public static func report(
        arrivals: [(seq: Int, at: UInt64)], sent: Int, periodNanos: UInt64,
        deadlineNanos: UInt64
    ) -> FrameReport {
        guard !arrivals.isEmpty else { return FrameReport(sent: sent, received: 0, late: 0, deadlineNanos: deadlineNanos, delayNanos: []) }
        // Relative to the schedule; Int64 arithmetic, since an early seq can arrive late.
        let relative = arrivals.map { Int64(bitPattern: $0.at) &- Int64($0.seq) &* Int64(periodNanos) }
        let anchor = relative.min()!
        let delays = relative.map { UInt64($0 - anchor) }
        return FrameReport(
            sent: sent, received: arrivals.count, late: delays.filter { $0 > deadlineNanos }.count,
            deadlineNanos: deadlineNanos, delayNanos: delays)
    }
}
