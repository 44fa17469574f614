import Foundation
import PeerBenchPlugin
import PeerBenchSockets
import PeerBenchSystem
import PeerBenchWorkloads
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Loaded probes on a separate flow (`loadedRttProbes.flow` `separate`,
/// docs/protocol/udp.md): a second socket pair that carries only PROBE/ECHO datagrams
/// while the first carries the data.
///
/// The server's half: a second socket, its port announced in HELLO_ACK, answering
/// every PROBE with an ECHO on its own thread until the session ends.
final class UDPProbeFlowEcho: Sendable {
    let socket: Socket
    let port: UInt16
    private let stopped = Mutex(false)
    private let ended = DispatchSemaphore(value: 0)

    /// Binds as the cell's server endpoint binds its data sockets (its data ports and
    /// admitted peer, when set), marked with the cell's service class; call inside the
    /// server's network namespace.
    init(cell: CellContext) throws {
        socket = try UDPSocketSetup.make(family: SocketAddress(host: cell.server.address, port: 0).family)
        cell.markServiceClass(socket)
        port = try cell.server.bindServer(socket).port
    }

    func start() {
        CPUAccount.startThread("udp probe flow") { [self] in run() }
    }

    /// Ends the echo thread (within one tick) and waits for it.
    func stop() {
        stopped.withLock { $0 = true }
        ended.wait()
    }

    private func run() {
        defer { ended.signal() }
        let rx = UDPBatchReceiver(capacity: 8)
        var connected = false
        try? UDPSocketSetup.receiveTimeout(socket, nanos: UDPServerSession.tick)
        while !stopped.withLock({ $0 }) {
            guard let n = try? rx.receive(socket), n > 0 else { continue }
            for i in 0..<n {
                guard let h = UDPDatagramHeader(rx.datagram(i)), h.type == .probe else { continue }
                if !connected, let from = rx.source(i) {
                    // The first prober owns the flow; connecting filters every other sender.
                    connected = (try? socket.connect(from)) != nil
                }
                let echo = UDPDatagramHeader(type: .echo, session: h.session, sequence: h.sequence, timestamp: h.timestamp).datagram()
                _ = echo.withUnsafeBytes { try? socket.send($0) }
            }
        }
    }
}

/// The client's half: one PROBE every interval from the start of the bulk phase on
/// the second socket, each awaited for at most `probeTimeoutMs` (unanswered: lost),
/// on its own thread while the client's thread sends the data.
final class UDPProbeFlowProber: Sendable {
    private let socket: Socket
    private let session: UInt32
    private let intervalNanos: UInt64
    private let timeoutNanos: UInt64
    private let stopRequested = Mutex(false)
    private let wake = DispatchSemaphore(value: 0)
    private let ended = DispatchSemaphore(value: 0)
    /// Set by the probing thread before `ended` is signalled, read after it.
    private let outcome = Mutex<(rtts: [UInt64], sent: Int)>(([], 0))

    init(socket: Socket, session: UInt32, probes: LoadedRttProbes, timeoutNanos: UInt64) {
        self.socket = socket
        self.session = session
        intervalNanos = probes.intervalNanos
        self.timeoutNanos = timeoutNanos
    }

    /// The answered probes' RTTs (send order); complete once `finish` returned.
    var rtts: [UInt64] { outcome.withLock { $0.rtts } }
    /// How many probes went out; complete once `finish` returned.
    var sent: Int { outcome.withLock { $0.sent } }

    func start() {
        CPUAccount.startThread("udp separate-flow probes") { [self] in run() }
    }

    /// Stops after the probe in flight and waits for the thread; again, does nothing.
    func finish() {
        let first = stopRequested.withLock { stop in
            defer { stop = true }
            return !stop
        }
        guard first else { return }
        wake.signal()
        ended.wait()
    }

    private func run() {
        var rtts: [UInt64] = []
        var sent = 0
        defer {
            outcome.withLock { $0 = (rtts, sent) }
            ended.signal()
        }
        var schedule = LoadedProbeSchedule(LoadedRttProbes(intervalMs: Double(intervalNanos) / 1e6))
        schedule.begin(at: MonotonicClock.now())
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let wait = schedule.nanosUntilDue()
            if wait > 0 { _ = wake.wait(timeout: .now() + .nanoseconds(Int(clamping: wait))) }
            if stopRequested.withLock({ $0 }) { return }
            let now = MonotonicClock.now()
            guard let k = schedule.takeDue(now: now) else { continue }
            let seq = UDPClient.loadedSequenceBase + UInt64(k)
            let probe = UDPDatagramHeader(type: .probe, session: session, sequence: seq, timestamp: now).datagram()
            guard (try? probe.withUnsafeBytes({ try socket.send($0) })) != nil else { return }
            sent += 1
            // Its echo, or lost after the timeout; a late echo of an earlier probe is skipped.
            let until = now + timeoutNanos
            while MonotonicClock.now() < until {
                guard (try? UDPSocketSetup.receiveTimeout(socket, nanos: until - MonotonicClock.now())) != nil,
                    let n = try? buffer.withUnsafeMutableBytes({ try socket.receive($0) })
                else { break }
                if n == 0 { return }  // shut down: the cell was cancelled
                let answered = buffer.withUnsafeBytes { p -> Bool in
                    guard let h = UDPDatagramHeader(UnsafeRawBufferPointer(rebasing: p[0..<n])), h.type == .echo,
                        h.session == session, h.sequence == seq
                    else { return false }
                    return true
                }
                if answered {
                    rtts.append(MonotonicClock.elapsed(since: now))
                    break
                }
            }
        }
    }
}
