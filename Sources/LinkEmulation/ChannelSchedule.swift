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
    /// The availability-window period, nanoseconds; nil = none. With windows, a frame
    /// that finds the transmitter idle waits for the start of the next window; frames
    /// that queue behind a transmission follow it back to back (docs/LINK-MODEL.md,
    /// "Availability windows").
    public var windowNanos: UInt64?
    /// Probability that a frame waiting for a window misses it and waits for the next one
    /// (the exchange failed and is retried a window later, or the radio was busy elsewhere:
    /// a hot, throttling phone, a crowded band); 0 = never [F per environment].
    public var windowMissProbability: Double = 0

    public init(name: String, slotNanos: UInt64, onChannel: [Bool], windowNanos: UInt64? = nil) {
        precondition(!onChannel.isEmpty && onChannel.contains(true), "a channel schedule needs at least one on-channel slot")
        precondition(windowNanos.map { $0 > 0 && slotNanos % $0 == 0 } ?? true, "a slot must hold whole availability windows")
        self.name = name
        self.slotNanos = slotNanos
        self.onChannel = onChannel
        self.windowNanos = windowNanos
    }

    /// One availability window: 16 TU = 16.384 ms [D: seemoo-lab/owl]; four make a slot.
    public static let availabilityWindowNanos: UInt64 = 16 * timeUnitNanos

    /// AWDL while a transfer is under way (Wi-Fi Aware's `bulk` performance mode) with
    /// `offSlots` of the 16 slots away from the peer-to-peer channel, spread evenly
    /// over the sequence [A], and frames sent from the start of an availability window
    /// [A for the mechanism, D for the 16 TU window]; `windows: false` leaves the
    /// windows out (only the slots: the emulator's pre-calibration model, kept for tests
    /// of the off-channel slots alone).
    public static func awdl(offSlots: Int, windowMiss: Double = 0, windows: Bool = true) -> ChannelSchedule {
        let off = max(0, min(offSlots, 15))
        let offIndices = Set((0..<off).map { ($0 * 16 + 16 - 1) / max(off, 1) % 16 })
        var s = ChannelSchedule(
            name: "bulk", slotNanos: awdlSlotNanos, onChannel: (0..<16).map { !offIndices.contains($0) },
            windowNanos: windows ? availabilityWindowNanos : nil)
        s.windowMissProbability = max(0, min(windowMiss, 0.95))
        return s
    }

    /// The default AWDL data-state schedule (`awdl(offSlots: defaultOffSlots)`).
    public static let bulk = awdl(offSlots: defaultOffSlots)

    /// Off-channel slots of the default `bulk` schedule: none. The field study's TCP
    /// round trips (RTT sd 9-12 ms in every place, docs/FIELD-STUDY.md) leave no room for
    /// regular 65.5 ms excursions, which alone would give an sd above 20 ms [F]; an
    /// environment adds its own (`awdlOffSlots`).
    public static let defaultOffSlots = 0

    /// The most off-channel slots a radio profile may ask for (`awdlOffSlots`): AWDL's
    /// idle sequence, on the pair's channel in only 3 of 16 slots (seemoo-lab/owl
    /// src/channel.c); spread evenly (slots 0, 5 and 10), a frame waits up to 0.39 s.
    public static let maxProfileOffSlots = 13

    /// Number of slots of the sequence away from the peer-to-peer channel.
    public var offSlotCount: Int { onChannel.filter { !$0 }.count }

    /// The start of the first availability window at or after `t` (t itself without windows).
    @inline(__always)
    public func windowStart(atOrAfter t: UInt64) -> UInt64 {
        guard let w = windowNanos else { return t }
        let r = t % w
        return r == 0 ? t : t - r + w
    }

    /// Wi-Fi Aware's "realtime" duty cycle [A]: no off-channel slots.
    public static let realtime = ChannelSchedule(name: "realtime", slotNanos: awdlSlotNanos, onChannel: [true])

    /// No channel switching at all (fixed-parameter links).
    public static let alwaysOn = ChannelSchedule(name: "always-on", slotNanos: awdlSlotNanos, onChannel: [true])

    /// True when every slot is on channel: the emulator can skip the slots (not the windows).
    public var isAlwaysOn: Bool { !onChannel.contains(false) }

    /// Share of time on the peer-to-peer channel.
    public var onFraction: Double { Double(onChannel.filter { $0 }.count) / Double(onChannel.count) }

    public var description: String {
        let miss = windowMissProbability > 0 ? ", \(windowMissProbability) of windows missed" : ""
        let windows = windowNanos.map { ", sent from \(Double($0) / 1e6) ms availability windows\(miss)" } ?? ""
        if isAlwaysOn { return windows.isEmpty ? name : "\(name) (always on channel\(windows))" }
        return "\(name) (\(onChannel.filter { $0 }.count) of \(onChannel.count) slots of \(Double(slotNanos) / 1e6) ms on channel\(windows))"
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
