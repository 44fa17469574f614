public import PeerBenchPlugin

/// How a transport carries the isochronous workload (docs/WORKLOADS.md): it asks the
/// peer for its frames, sends this side's as they fall due, and ends the phase with its
/// own handshake. What the workload is, written once in `Isochronous`: the schedule
/// (`FrameTimetable`), what a late or missing frame is, and what reaches the record.
public protocol FrameChannel {
    /// Down or bidir: asks the peer to send `frames` frames of `frameBytes` every
    /// `periodNanos`, and starts taking them (their arrivals into a `FrameArrivals`).
    mutating func pullFrames(frames: Int, frameBytes: Int, periodNanos: UInt64) throws
    /// Up or bidir: sends every frame of `timetable` as it falls due (a thread may
    /// `timetable.send(over:)`; an event loop takes `takeDue(now:)` each turn), while
    /// the peer's frames, if pulled, keep arriving.
    mutating func sendFrames(on timetable: inout FrameTimetable, frameBytes: Int) throws
    /// The transport's end of the phase, once this side's frames (if any) are sent:
    /// `up`, the peer's report of this side's `sent` frames (nil when none went up);
    /// `down`, what arrived of the peer's and how many it says it sent (nil when none
    /// were pulled).
    mutating func endFrames(sent: Int?, periodNanos: UInt64, deadlineNanos: UInt64) throws -> (
        up: FrameReport?, down: (arrivals: FrameArrivals, sent: Int)?
    )
}

/// The isochronous workload: a frame of `frameBytes` every `periodNanos` for `frames`
/// frames in `direction`, each frame's delay measured against its schedule on its
/// receiver (`FrameSchedule`: no shared clock), late beyond `deadlineNanos`.
public struct Isochronous: Sendable {
    public let frames: Int
    public let frameBytes: Int
    public let periodNanos: UInt64
    public let direction: WorkloadSpec.Direction
    public let deadlineNanos: UInt64

    /// nil when `workload` is not isochronous.
    public init?(_ workload: WorkloadSpec) {
        guard case .isochronous(let size, let period, let frames, let direction, let deadline) = workload.kind else { return nil }
        self.frames = frames
        frameBytes = size
        periodNanos = period
        self.direction = direction
        deadlineNanos = deadline
    }

    /// Runs the frames over `channel` and puts `frames` (and `partial` when one never
    /// arrived) into `m`.
    public func run(over channel: inout some FrameChannel, transport: String, into m: inout TransportMeasurement) throws {
        let up = direction != .down, down = direction != .up
        if down { try channel.pullFrames(frames: frames, frameBytes: frameBytes, periodNanos: periodNanos) }
        if up {
            var timetable = FrameTimetable(frames: frames, periodNanos: periodNanos)
            try channel.sendFrames(on: &timetable, frameBytes: frameBytes)
        }
        let seen = try channel.endFrames(sent: up ? frames : nil, periodNanos: periodNanos, deadlineNanos: deadlineNanos)
        m.recordFrames(
            up: up ? seen.up : nil,
            down: seen.down.map { $0.arrivals.report(sent: $0.sent, periodNanos: periodNanos, deadlineNanos: deadlineNanos) },
            transport: transport)
    }
}
