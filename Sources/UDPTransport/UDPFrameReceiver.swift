import Foundation
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchWorkloads
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The client's half of isochronous `down` and `bidir` (docs/protocol/udp.md,
/// "Isochronous"): a thread that sends FRAME_PULL {frames, size, period} and takes the
/// server's frames, each timed by its kernel receive stamp, until FRAMES_SENT {sent} and
/// every frame sent is in, or `linger` after FRAMES_SENT. FRAME_PULL is repeated when
/// nothing of the flow has come for `baseWait` (doubling up to 1 s): the pull or the
/// FRAMES_SENT was lost, and the server answers a repeated pull with FRAMES_SENT once
/// its frames are out. The client's own thread sends its frames meanwhile (bidir).
final class UDPFrameReceiver: Sendable {
    /// What the thread saw of the flow, set before `ended` is signalled.
    struct Outcome: Sendable {
        var arrivals: FrameArrivals
        /// FRAMES_SENT's count, bounded by the frames asked for; nil when it never came.
        var serverSent: Int?
        var pulls = 0
    }

    private let stopRequested = Mutex(false)
    private let ended = DispatchSemaphore(value: 0)
    private let outcome: Mutex<Result<Outcome, any Error>?> = Mutex(nil)

    init(
        socket: Socket, session: UInt32, tag: UDPDatagramTag?, cell: CellContext, frames: Int, size: Int, periodNanos: UInt64,
        linger: UInt64, baseWait: UInt64
    ) throws {
        try socket.setOption(SOL_SOCKET, SO_TIMESTAMPNS, Int32(1), "SO_TIMESTAMPNS")
        CPUAccount.startThread("udp frame receiver") { [self] in
            let pull = FramePull(socket: socket, session: session, tag: tag, frames: frames, size: size, periodNanos: periodNanos)
            let result = Result { try run(pull, cell: cell, linger: linger, baseWait: baseWait) }
            outcome.withLock { $0 = result }
            ended.signal()
        }
    }

    /// Whether the thread has ended with an error (the client's frames need not go on).
    var hasFailed: Bool {
        if case .failure? = outcome.withLock({ $0 }) { return true }
        return false
    }

    /// Waits for the flow to end; throws the thread's error.
    func result() throws -> Outcome {
        ended.wait()
        ended.signal()
        return try outcome.withLock { $0! }.get()
    }

    /// Ends the thread (within one receive tick) and waits for it.
    func stop() {
        stopRequested.withLock { $0 = true }
        ended.wait()
        ended.signal()
    }

    /// What the thread sends: FRAME_PULL, tagged in an authenticated cell.
    private struct FramePull {
        let socket: Socket
        let session: UInt32
        let tag: UDPDatagramTag?
        let frames: Int
        let size: Int
        let periodNanos: UInt64

        func send(attempt: Int) throws {
            let datagram = UDPDatagramHeader(type: .framePull, session: session, sequence: UInt64(attempt), timestamp: MonotonicClock.now())
                .datagram([UInt64(frames), UInt64(size), periodNanos])
            guard try (tag?.tagged(datagram) ?? datagram).withUnsafeBytes({ try socket.send($0) }) != nil else {
                throw TransportError("timed out sending to the udp server (cell deadline)")
            }
        }
    }

    private func run(_ pull: FramePull, cell: CellContext, linger: UInt64, baseWait: UInt64) throws -> Outcome {
        let socket = pull.socket
        let rx = UDPBatchReceiver(capacity: 64)
        var o = Outcome(arrivals: FrameArrivals(limit: pull.frames))
        var sentAt: UInt64 = 0  // FRAMES_SENT's arrival
        var wait = baseWait
        var lastActivity: UInt64 = 0
        func sendPull() throws {
            try pull.send(attempt: o.pulls)
            o.pulls += 1
            lastActivity = MonotonicClock.now()
        }
        try sendPull()
        while !stopRequested.withLock({ $0 }) {
            let now = MonotonicClock.now()
            if let sent = o.serverSent, o.arrivals.arrivals.count >= sent || now >= sentAt + linger { return o }
            if now >= lastActivity + wait {
                try sendPull()
                wait = min(2 * wait, max(1_000_000_000, baseWait))
                continue
            }
            var until = min(lastActivity + wait, now + UDPServerSession.tick)
            if o.serverSent != nil { until = min(until, sentAt + linger) }
            let remaining = cell.remainingNanos
            if remaining == 0 {
                throw TransportError("udp client: cell deadline passed receiving frames (\(o.arrivals.arrivals.count) of \(pull.frames) in)")
            }
            try UDPSocketSetup.receiveTimeout(socket, nanos: min(until > now ? until - now : 0, remaining))
            let received: Int?
            do { received = try rx.receive(socket) } catch let e as SystemError where e.errno == ECONNREFUSED {
                throw TransportError("udp client: the server at \(cell.server.address) is unreachable (ICMP port unreachable)")
            }
            guard let n = received else { continue }
            if n == 0 { throw TransportError("udp client: socket shut down (cell cancelled)") }
            let mono = MonotonicClock.now()
            let real = LoadedEchoPoller.realtimeNow()
            for i in 0..<n {
                guard let h = UDPDatagramHeader(rx.datagram(i)), h.session == pull.session else { continue }
                switch h.type {
                case .frame:
                    lastActivity = mono
                    wait = baseWait
                    // The kernel's stamp (realtime) moved to the monotonic clock by its age.
                    let age = rx.timestamp(i).map { real > $0 ? real - $0 : 0 } ?? 0
                    o.arrivals.record(seq: h.sequence, at: mono &- age)
                case .framesSent where o.serverSent == nil:
                    lastActivity = mono
                    o.serverSent = Int(min(rx.datagram(i).field(0), UInt64(pull.frames)))
                    sentAt = mono
                default:
                    continue
                }
            }
        }
        throw TransportError("udp client: the frames were stopped")
    }
}
