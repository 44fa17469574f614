import Foundation
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchWorkloads
import Synchronization

/// The client's receiving half during the bulk phase: while the client's thread
/// writes DATA (with a PROBE between batches when `loadedRttProbes` is on), this
/// thread reads what the server sends: the ECHOs of loaded probes, timed on arrival,
/// and the REPORT. Loaded probes share the connection with the data, so their RTT
/// includes the data queued ahead of them: the head-of-line blocking an app sees on
/// one stream.
///
/// It also notices a server that goes away. A writer blocked in send() on a full
/// window learns nothing from its own socket when the server shuts down and leaves
/// nothing unread (a stopped plugin server does: a FIN, no RST, and a window that
/// never opens again): the kernel keeps it blocked until the send timeout, which
/// restarts after each partial write (twice the cell's length), or until the
/// server's orphaned socket expires (about two minutes). So whatever ends the
/// reading before the REPORT (the server's FIN, a reset, the receive timeout at the
/// cell deadline) shuts the stream down, which ends a blocked write at once, and the
/// writer reports the reader's error (`failureBeforeReport`).
///
/// Hand-off: the reader signals `reportArrived`; the writer then stops probing and
/// calls `finish(probesSent:)`, after which the reader collects the echoes still in
/// flight and ends.
final class StreamEchoCollector: Sendable {
    private let connection: HelperConnection
    private let who: String
    /// Whether loaded probes are sent, so ECHOs may come; without, only the REPORT.
    private let expectsEchoes: Bool
    /// A bidir bulk phase: the server's DATA is counted and its PUSHED awaited too.
    private let expectsPush: Bool
    private let reportArrived = DispatchSemaphore(value: 0)
    private let sentKnown = DispatchSemaphore(value: 0)
    private let ended = DispatchSemaphore(value: 0)
    /// The reading error that ended the bulk phase before the REPORT, set before the
    /// stream is shut down: the writer reads it when its write fails.
    private let earlyFailure = Mutex<(any Error)?>(nil)
    /// Set by the writer before `sentKnown` is signalled, read by the reader after it.
    private let probesSent = Mutex(0)
    /// Set by the reading thread before `ended` is signalled, read after it.
    private let outcome = Mutex<Result<Answers, any Error>?>(nil)

    /// What came down in a bidir bulk phase: the DATA counted, PUSHED's body, when it was read.
    struct Down: Sendable {
        var count = ReceivedMessages()
        var pushed: [UInt8] = []
        var pushedAt: UInt64 = 0
    }

    /// The loaded RTTs (send order), the REPORT body and when it was read, and the down half of a bidir phase.
    typealias Answers = (rtts: [UInt64], report: [UInt8], reportAt: UInt64, down: Down?)

    /// `client`'s reader is this thread's until it ends; the client's thread writes meanwhile.
    init(_ client: StreamWorkloadClient, who: String, expectsEchoes: Bool, expectsPush: Bool = false) {
        connection = HelperConnection(client: client)
        self.who = who
        self.expectsEchoes = expectsEchoes
        self.expectsPush = expectsPush
    }

    func start() {
        CPUAccount.startThread("\(who) bulk reader") { [self] in run() }
    }

    /// Waits up to `nanos` (nil: as long as it takes) for the REPORT; true once it
    /// (or a reading error) came. The reader ends at the latest when its receive
    /// timeout (set from the cell's deadline) expires or the cell is cancelled.
    func waitForReport(nanos: UInt64?) -> Bool {
        guard let nanos else {
            reportArrived.wait()
            return true
        }
        return reportArrived.wait(timeout: .now() + .nanoseconds(Int(clamping: nanos))) == .success
    }

    /// Why the reading ended before the REPORT, if it did: the cause of a write that
    /// failed because the reader shut the stream down. Waits up to `nanos` for the
    /// reader to get there: the write can fail first when both see the end at once
    /// (GnuTLS invalidates the session as soon as the reader's record fails, so the
    /// writer's next record fails before the reader has said why).
    func failureBeforeReport(waitingUpTo nanos: UInt64) -> (any Error)? {
        if reportArrived.wait(timeout: .now() + .nanoseconds(Int(clamping: nanos))) == .success {
            reportArrived.signal()  // still there for `waitForReport`
        }
        return earlyFailure.withLock { $0 }
    }

    /// The writer sent its last probe: waits for the remaining echoes; returns the
    /// loaded RTTs (send order), the REPORT body and when it was read, or throws the
    /// reader's error.
    func finish(probesSent: Int) throws -> Answers {
        self.probesSent.withLock { $0 = probesSent }
        sentKnown.signal()
        ended.wait()
        return try outcome.withLock { $0! }.get()
    }

    /// The writer failed and will not call `finish`: the reader stops after the REPORT
    /// (or ends at its error, at the latest at the cell's deadline) instead of waiting.
    func abandon() {
        probesSent.withLock { $0 = 0 }
        sentKnown.signal()
    }

    private func run() {
        let reader = connection.client.reader
        var rtts: [UInt64] = []
        var report: [UInt8]?
        var reportAt: UInt64 = 0
        var signalled = false
        do {
            var down = Down()
            var pushed = !expectsPush
            var target: Int?
            reader.waitingFor = expectsEchoes ? "a probe echo or the server's REPORT" : "the server's REPORT"
            while (target.map({ rtts.count < $0 }) ?? true) || !pushed {
                guard let frame = try reader.nextControl(counting: &down.count) else {
                    throw TransportError("\(who): the server closed the connection during the bulk phase")
                }
                switch frame.type {
                case .echo where expectsEchoes && frame.body.count == 12:
                    rtts.append(MonotonicClock.elapsed(since: frame.body.readBE(UInt64.self, at: 4)))
                case .report where report == nil:
                    reportAt = MonotonicClock.now()
                    report = Array(frame.body)
                    signalled = true
                    reportArrived.signal()
                    sentKnown.wait()
                    target = probesSent.withLock { $0 }
                    reader.waitingFor = pushed ? "the echoes of the last loaded probes" : "the server's DATA after PULL"
                case .pushed where !pushed:
                    down.pushed = Array(frame.body)
                    down.pushedAt = reader.filledAt
                    pushed = true
                default:
                    throw TransportError(
                        expectsEchoes
                            ? "\(who): expected a probe echo or REPORT during the bulk phase, got a \(frame.type) frame"
                            : "\(who): expected REPORT, got a \(frame.type) frame")
                }
            }
            outcome.withLock { $0 = .success((rtts, report ?? [], reportAt, expectsPush ? down : nil)) }
        } catch {
            outcome.withLock { $0 = .failure(error) }
            if !signalled {
                // The writer may be blocked in a send that nothing else would end.
                earlyFailure.withLock { $0 = error }
                connection.client.stream.shutdown()
                reportArrived.signal()
                sentKnown.wait()
            }
        }
        ended.signal()
    }
}

/// A client connection (its `ByteStream` and frame reader) lent to a helper thread of
/// the bulk phase: the echo readers read it while the client's thread writes, the
/// separate probe flow has it to itself until it ends.
// @unchecked: ByteStream (a socket or GnuTLS session) and StreamFrameReader are not Sendable; the kernel and GnuTLS allow one reader beside one writer, and the owner leaves the reader alone until the helper signals its end.
struct HelperConnection: @unchecked Sendable {
    let client: StreamWorkloadClient
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
final class SeparateFlowProber: Sendable {
    private let flow: HelperConnection
    private let intervalNanos: UInt64
    private let stopRequested = Mutex(false)
    private let wake = DispatchSemaphore(value: 0)
    private let ended = DispatchSemaphore(value: 0)
    /// Set by the probing thread before `ended` is signalled, read after it.
    private let outcome = Mutex<Result<[UInt64], any Error>>(.success([]))

    /// `flow` is this thread's until `finish` returns.
    init(_ flow: StreamWorkloadClient, probes: LoadedRttProbes) {
        self.flow = HelperConnection(client: flow)
        intervalNanos = probes.intervalNanos
    }

    func start() {
        CPUAccount.startThread("separate-flow probes") { [self] in run() }
    }

    /// Stops after the probe in flight; returns the RTTs (send order) or its error.
    func finish() throws -> [UInt64] {
        stopRequested.withLock { $0 = true }
        wake.signal()
        ended.wait()
        return try outcome.withLock { $0 }.get()
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
        var rtts: [UInt64] = []
        do {
            while true {
                let wait = schedule.nanosUntilDue()
                if wait > 0 { _ = wake.wait(timeout: .now() + .nanoseconds(Int(clamping: wait))) }
                if stopRequested.withLock({ $0 }) { break }
                guard let seq = schedule.takeDue() else { continue }
                rtts.append(try flow.client.probeOnce(seq: seq, phase: "on the separate probe flow"))
            }
            outcome.withLock { $0 = .success(rtts) }
        } catch {
            outcome.withLock { $0 = .failure(error) }
        }
        ended.signal()
    }
}
