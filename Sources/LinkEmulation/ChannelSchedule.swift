/// The AWDL channel sequence: the radio spends whole slots on the peer-to-peer
/// channel or elsewhere (the infrastructure channel, scanning). Packets can only
/// cross during on-channel slots; those that arrive during an off-channel slot wait.
///
/// AWDL timing [D: seemoo-lab/owl]: an extended availability window is 64 TU
/// (65.536 ms), and the channel sequence has 16 of them (1 024 TU, about 1.05 s).
/// Both peers follow the same synchronised sequence, so one schedule serves both
/// directions.
public struct ChannelSchedule: Sendable, Equatable, CustomStringConvertible {
    /// One time unit (TU) of 802.11: 1 024 us.
    public static let timeUnitNanos: UInt64 = 1_024_000
    /// One slot: 64 TU = 65.536 ms.
    public static let awdlSlotNanos: UInt64 = 64 * timeUnitNanos

    /// Length of one slot, nanoseconds.
    public var slotNanos: UInt64
    /// Whether the radio is on the peer-to-peer channel in each slot of the sequence.
    public var onChannel: [Bool]
    /// Name for reports: `bulk`, `realtime`, `always-on`, or `custom`.
    public var name: String

    public init(name: String, slotNanos: UInt64, onChannel: [Bool]) {
        precondition(!onChannel.isEmpty && onChannel.contains(true), "a channel schedule needs at least one on-channel slot")
        self.name = name
        self.slotNanos = slotNanos
        self.onChannel = onChannel
    }

    /// AWDL during an active transfer [A, LINK-MODEL.md section 2]: 14 of 16 slots on
    /// channel, one 64 TU off-channel slot every 8 slots.
    public static let bulk = ChannelSchedule(
        name: "bulk", slotNanos: awdlSlotNanos, onChannel: (0..<16).map { $0 % 8 != 7 })

    /// Wi-Fi Aware's "realtime" duty cycle [A]: no off-channel slots.
    public static let realtime = ChannelSchedule(name: "realtime", slotNanos: awdlSlotNanos, onChannel: [true])

    /// No channel switching at all (fixed-parameter links).
    public static let alwaysOn = ChannelSchedule(name: "always-on", slotNanos: awdlSlotNanos, onChannel: [true])

    /// True when every slot is on channel: the emulator can skip the schedule.
    public var isAlwaysOn: Bool { !onChannel.contains(false) }

    /// Share of time on the peer-to-peer channel.
    public var onFraction: Double { Double(onChannel.filter { $0 }.count) / Double(onChannel.count) }

    public var description: String {
        isAlwaysOn ? name : "\(name) (\(onChannel.filter { $0 }.count) of \(onChannel.count) slots of \(Double(slotNanos) / 1e6) ms on channel)"
    }

    /// For a time `t` (nanoseconds since the schedule started): the earliest time at or
    /// after `t` when the channel is on, and when that on-channel stretch ends.
    @inline(__always)
    public func nextOn(atOrAfter t: UInt64) -> (start: UInt64, end: UInt64) {
        if isAlwaysOn { return (t, UInt64.max) }
        let n = UInt64(onChannel.count)
        var slot = t / slotNanos
        var start = t
        // Find the first on slot (the sequence always has one).
        while !onChannel[Int(slot % n)] {
            slot += 1
            start = slot * slotNanos
        }
        var endSlot = slot + 1
        while onChannel[Int(endSlot % n)] && endSlot - slot < n { endSlot += 1 }
        return (start, endSlot * slotNanos)
    }

    /// When a packet that may start at `t` and needs `duration` on air finishes: it
    /// goes out in the first on-channel stretch it fits in whole (frames are never
    /// split across a channel switch; one longer than a stretch goes out anyway).
    @inline(__always)
    public func departure(earliest t: UInt64, duration: UInt64) -> UInt64 {
        if isAlwaysOn { return t &+ duration }
        var (start, end) = nextOn(atOrAfter: t)
        if start + duration > end {
            let next = nextOn(atOrAfter: end)
            if next.end - next.start >= duration { (start, end) = next }
        }
        return start + duration
    }

    /// True when time `t` falls in an off-channel slot.
    public func isOff(at t: UInt64) -> Bool {
        !onChannel[Int((t / slotNanos) % UInt64(onChannel.count))]
    }
}
