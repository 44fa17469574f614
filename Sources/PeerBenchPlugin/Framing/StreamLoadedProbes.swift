import Foundation
import Synchronization

/// The client's receiving half during a bulk phase with loaded RTT probes
/// (`loadedRttProbes`): while the client's thread writes DATA with a PROBE between
/// batches, this thread reads the server's ECHOs (timing each on arrival) and its
/// REPORT. The probes share the connection with the data, so their RTT includes the
/// data queued ahead of them: the head-of-line blocking an app sees on one stream.
///
/// Hand-off: the reader signals `reportArrived`; the writer then stops probing and
/// calls `finish(probesSent:)`, after which the reader collects the echoes still in
/// flight and ends. A reading error (the cell deadline) also releases the writer.
final class StreamEchoCollector: @unchecked Sendable {
    private let reader: StreamFrameReader
    private let who: String
    private let reportArrived = DispatchSemaphore(value: 0)
    private let sentKnown = DispatchSemaphore(value: 0)
    private let ended = DispatchSemaphore(value: 0)
    // Written by the reading thread before `ended` is signalled, read after it.
    private var probesSent = 0
    private var rtts: [UInt64] = []
    private var report: [UInt8]?
    private var failure: (any Error)?

    init(reader: StreamFrameReader, who: String) {
        self.reader = reader
        self.who = who
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "\(who) echoes"
        thread.start()
    }

    /// Waits up to `nanos` for the REPORT; true once it (or a reading error) came.
    func waitForReport(nanos: UInt64) -> Bool {
        reportArrived.wait(timeout: .now() + .nanoseconds(Int(clamping: nanos))) == .success
    }

    /// The writer sent its last probe: waits for the remaining echoes; returns the
    /// loaded RTTs (send order) and the REPORT body, or throws the reader's error.
    func finish(probesSent: Int) throws -> (rtts: [UInt64], report: [UInt8]) {
        self.probesSent = probesSent
        sentKnown.signal()
        ended.wait()
        if let failure { throw failure }
        return (rtts, report ?? [])
    }

    /// The writer failed and will not call `finish`: the reader stops after the REPORT
    /// (or ends at its error, at the latest at the cell's deadline) instead of waiting.
    func abandon() {
        probesSent = 0
        sentKnown.signal()
    }

    private func run() {
        var signalled = false
        do {
            var ignored = StreamDataCount()
            var target: Int?
            reader.waitingFor = "a probe echo or the server's REPORT"
            while target.map({ rtts.count < $0 }) ?? true {
                guard let frame = try reader.nextControl(counting: &ignored) else {
                    throw TransportError("\(who): the server closed the connection during the bulk phase")
                }
                switch frame.type {
                case .echo where frame.body.count == 12:
                    rtts.append(MonotonicClock.elapsed(since: frame.body.readBE(UInt64.self, at: 4)))
                case .report where report == nil:
                    report = Array(frame.body)
                    signalled = true
                    reportArrived.signal()
                    sentKnown.wait()
                    target = probesSent
                    reader.waitingFor = "the echoes of the last loaded probes"
                default:
                    throw TransportError("\(who): expected a probe echo or REPORT during the bulk phase, got a \(frame.type) frame")
                }
            }
        } catch {
            failure = error
            if !signalled {
                reportArrived.signal()
                sentKnown.wait()
            }
        }
        ended.signal()
    }
}

extension LoadedProbeSchedule {
    /// A PROBE frame {seq u32, send time u64} if a probe is due, stamped now.
    mutating func probeIfDue() -> [UInt8]? {
        let now = MonotonicClock.now()
        guard let seq = takeDue(now: now) else { return nil }
        return StreamFraming.controlFrame(.probe, [UInt32(truncatingIfNeeded: seq), now])
    }
}

/// Loaded probes on a separate flow (`loadedRttProbes.flow` `separate`): a thread that
/// ping-pongs on a second connection, one PROBE every interval from the start (the
/// next right after a late ECHO, never two in flight), while the client's thread runs
/// the bulk phase on the first. The probe waits behind no data of its own connection;
/// what it does share with the data is the link's queue, the hosts' stacks and the
/// path's buffers: what another app's message sees while the link is busy.
final class SeparateFlowProber: @unchecked Sendable {
    private let flow: StreamWorkloadClient
    private let intervalNanos: UInt64
    private let stopRequested = Mutex(false)
    private let wake = DispatchSemaphore(value: 0)
    private let ended = DispatchSemaphore(value: 0)
    // Written by the probing thread before `ended` is signalled, read after it.
    private var rtts: [UInt64] = []
    private var failure: (any Error)?

    init(_ flow: StreamWorkloadClient, probes: LoadedRttProbes) {
        self.flow = flow
        intervalNanos = probes.intervalNanos
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "separate-flow probes"
        thread.start()
    }

    /// Stops after the probe in flight; returns the RTTs (send order) or its error.
    func finish() throws -> [UInt64] {
        stopRequested.withLock { $0 = true }
        wake.signal()
        ended.wait()
        if let failure { throw failure }
        return rtts
    }

    /// The bulk phase failed: stop without waiting (the connection's scope closes it,
    /// which ends a probe in flight with an error nobody reads).
    func abandon() {
        stopRequested.withLock { $0 = true }
        wake.signal()
    }

    private func run() {
        var schedule = LoadedProbeSchedule(LoadedRttProbes(intervalMs: Double(intervalNanos) / 1e6))
        schedule.begin(at: MonotonicClock.now())
        do {
            while true {
                let wait = schedule.nanosUntilDue()
                if wait > 0 { _ = wake.wait(timeout: .now() + .nanoseconds(Int(clamping: wait))) }
                if stopRequested.withLock({ $0 }) { break }
                guard let seq = schedule.takeDue() else { continue }
                rtts.append(try flow.probeOnce(seq: seq, phase: "on the separate probe flow"))
            }
        } catch {
            failure = error
        }
        ended.signal()
    }
}
