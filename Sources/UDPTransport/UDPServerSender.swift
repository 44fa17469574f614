import Foundation
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchWorkloads
import Synchronization

/// The server's sending thread for what a client pulls (docs/protocol/udp.md): a PULL's
/// DATA (`pull`) or a FRAME_PULL's frames (`frames`), while the session's thread keeps
/// reading the client's datagrams (bidir: its DATA or frames). The work reports what it
/// handed to the kernel, and asks `stopped` between sends: the session ends it with `stop()`.
final class UDPServerSender: Sendable {
    private let stopRequested = Mutex(false)
    private let ended = DispatchSemaphore(value: 0)
    private let state = Mutex<(sent: Int, done: Bool)>((0, false))

    init(_ name: String, _ work: @escaping @Sendable (UDPServerSender) -> Void) {
        CPUAccount.startThread(name) { [self] in
            work(self)
            state.withLock { $0.done = true }
            ended.signal()
        }
    }

    /// The session asked the sender to stop.
    var stopped: Bool { stopRequested.withLock { $0 } }

    /// Whether everything and the trailer (PUSHED, FRAMES_SENT) have gone out, or the sender gave up.
    var isDone: Bool { state.withLock { $0.done } }
    /// DATA or frames handed to the kernel so far.
    var sent: Int { state.withLock { $0.sent } }

    /// The work has handed `n` to the kernel so far.
    func handed(_ n: Int) { state.withLock { $0.sent = n } }

    /// Stops after the send in progress (within 5 ms during a slow pace or a long period)
    /// and waits for the thread; the session is over, so nothing of the sender's is read.
    func stop() {
        stopRequested.withLock { $0 = true }
        ended.wait()
        ended.signal()
    }

    /// A FRAME_PULL's `count` frames of `size` bytes every `periodNanos` on the flow's
    /// `FrameTimetable`, then `trailer` (FRAMES_SENT) once.
    static func frames(
        socket: Socket, session: UInt32, count: Int, size: Int, periodNanos: UInt64, then trailer: @escaping @Sendable (Int) -> [UInt8]
    ) -> UDPServerSender {
        UDPServerSender("udp frame sender") { sender in
            var timetable = FrameTimetable(frames: count, periodNanos: periodNanos)
            var datagram = UDPFrameDatagram(session: session, size: size, tag: nil)
            // Shut down (the session ended) or the cell's deadline: the client counts what it missed.
            guard
                let sent = try? timetable.send(
                    stopped: { sender.stopped },
                    over: { seq in
                        try datagram.send(seq, on: socket)
                        sender.handed(seq + 1)
                    }), !sender.stopped
            else { return }
            _ = try? trailer(sent).withUnsafeBytes { try socket.send($0) }
        }
    }
}
