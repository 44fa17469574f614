import Foundation
import PeerBenchPlugin
import PeerBenchSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The client's half of bulk `down` and `bidir` (docs/protocol/udp.md, "Download"): a
/// thread that sends PULL {count, size}, accounts the server's DATA as the server
/// accounts the upload (`UDPReceiverStats`: duplicates, reordering, RFC 3550 jitter, by
/// kernel receive stamps), and ends at PUSHED {sent, bytes} once every DATA sent is in,
/// or `linger` after PUSHED. PULL is repeated when nothing of the flow has come for
/// `baseWait` (doubling up to 1 s): the PULL or the PUSHED was lost, and the server
/// answers a repeated PULL with PUSHED once its DATA is out.
///
/// With `bidir` the client's own thread sends its DATA and waits for the REPORT at the
/// same time: this thread then reads every datagram and hands all but DATA and PUSHED
/// to `mailbox`, where the client's `waitFor` takes them.
final class UDPDownReceiver: Sendable {
    struct Outcome: Sendable {
        var stats: UDPReceiverStats
        /// PUSHED's {sent, bytes}, bounded by what was asked for.
        var pushed: (sent: Int, bytes: Int)?
        var pushedAt: UInt64 = 0
        var pulls = 0
        var failure: String?
    }

    let mailbox: UDPMailbox?
    private let stopRequested = Mutex(false)
    private let finished = DispatchSemaphore(value: 0)
    private let ended = DispatchSemaphore(value: 0)
    private let outcome: Mutex<Outcome>

    init(
        socket: Socket, session: UInt32, tag: UDPDatagramTag?, cell: CellContext, count: Int, size: Int, linger: UInt64,
        baseWait: UInt64, forwarding: Bool
    ) throws {
        try socket.setOption(SOL_SOCKET, SO_TIMESTAMPNS, Int32(1), "SO_TIMESTAMPNS")
        try UDPSocketSetup.receiveTimeout(socket, nanos: UDPServerSession.tick)
        mailbox = forwarding ? UDPMailbox() : nil
        outcome = Mutex(Outcome(stats: UDPReceiverStats(expected: count)))
        CPUAccount.startThread("udp down receiver") { [self] in
            run(socket: socket, session: session, tag: tag, cell: cell, count: count, size: size, linger: linger, baseWait: baseWait)
            ended.signal()
        }
    }

    /// Waits until the download is complete (or failed at the cell's deadline).
    func result() -> Outcome {
        finished.wait()
        finished.signal()
        return outcome.withLock { $0 }
    }

    /// Ends the thread (within one receive tick) and waits for it.
    func stop() {
        stopRequested.withLock { $0 = true }
        ended.wait()
        ended.signal()
    }

    // One loop over the pull's whole life: its retries, deadline and datagram kinds all
    // update the one outcome it publishes. Long because split up, every piece would take and return that state.
    private func run(
        socket: Socket, session: UInt32, tag: UDPDatagramTag?, cell: CellContext, count: Int, size: Int,
        linger: UInt64, baseWait: UInt64
    ) {
        var o = outcome.withLock { $0 }
        var done = false
        func finish(_ failure: String? = nil) {
            o.failure = failure
            outcome.withLock { $0 = o }
            done = true
            finished.signal()
        }
        let rx = UDPBatchReceiver(capacity: 64)
        var wait = baseWait
        var lastActivity: UInt64 = 0
        func pull() {
            let datagram = UDPDatagramHeader(type: .pull, session: session, sequence: UInt64(o.pulls), timestamp: MonotonicClock.now())
                .datagram([UInt64(count), UInt64(size)])
            _ = try? (tag?.tagged(datagram) ?? datagram).withUnsafeBytes { try socket.send($0) }
            o.pulls += 1
            lastActivity = MonotonicClock.now()
        }
        pull()
        while !stopRequested.withLock({ $0 }) {
            let now = MonotonicClock.now()
            if !done {
                if let p = o.pushed, o.stats.received >= p.sent || now >= o.pushedAt + linger {
                    finish()
                    if mailbox == nil { return }
                } else if cell.remainingNanos == 0 {
                    finish("udp client: cell deadline passed during the download (\(o.stats.received) of \(count) DATA in)")
                    return
                } else if now >= lastActivity + wait {
                    pull()
                    wait = min(2 * wait, max(1_000_000_000, baseWait))
                }
            }
            let n: Int?
            do { n = try rx.receive(socket) } catch { continue }  // an ICMP error: the cell's deadline bounds a vanished server
            guard let n else { continue }
            if n == 0 {
                if !done { finish("udp client: socket shut down during the download (cell cancelled)") }
                return
            }
            let mono = MonotonicClock.now()
            let real = LoadedEchoPoller.realtimeNow()
            for i in 0..<n {
                let d = rx.datagram(i)
                guard let h = UDPDatagramHeader(d), h.session == session else { continue }
                switch h.type {
                case .data:
                    lastActivity = mono
                    wait = baseWait
                    // The kernel's stamp (realtime) moved to the monotonic clock by its age.
                    let stamp = rx.timestamp(i)
                    let age = stamp.map { real > $0 ? real - $0 : 0 } ?? 0
                    o.stats.record(
                        sequence: h.sequence, payloadBytes: d.count - UDPDatagramHeader.size, sentNanos: h.timestamp,
                        arrivedNanos: stamp ?? mono, monotonicArrival: mono &- age)
                case .pushed:
                    lastActivity = mono
                    if o.pushed == nil {
                        let sent = Int(min(d.field(0), UInt64(count)))
                        o.pushed = (sent, Int(min(d.field(1), UInt64(sent * size))))
                        o.pushedAt = mono
                    }
                default:
                    mailbox?.push(Array(d))
                }
            }
        }
        if !done { finish("udp client: the download was stopped") }
    }
}

/// Datagrams the down receiver read for the client's own thread (bidir: ECHO, REPORT,
/// BYE_ACK), at most `capacity` queued; `pop` waits for one.
final class UDPMailbox: Sendable {
    static let capacity = 1_024
    private let queue = Mutex<[[UInt8]]>([])
    private let available = DispatchSemaphore(value: 0)

    func push(_ datagram: [UInt8]) {
        let taken = queue.withLock { q -> Bool in
            guard q.count < Self.capacity else { return false }
            q.append(datagram)
            return true
        }
        if taken { available.signal() }
    }

    /// The oldest datagram, waiting up to `nanos`; nil when none came.
    func pop(within nanos: UInt64) -> [UInt8]? {
        guard available.wait(timeout: .now() + .nanoseconds(Int(clamping: nanos))) == .success else { return nil }
        return queue.withLock { $0.removeFirst() }
    }
}
