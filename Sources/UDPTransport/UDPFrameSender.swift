import Foundation
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchWorkloads
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A FRAME_PULL's frames on a thread of their own (docs/protocol/udp.md, "Isochronous"),
/// on the flow's `FrameTimetable`, then FRAMES_SENT, while the server's session thread
/// keeps reading.
final class UDPFrameSender: Sendable {
    private let stopRequested = Mutex(false)
    private let ended = DispatchSemaphore(value: 0)
    private let outcome = Mutex<(sent: Int, done: Bool)>((0, false))

    /// Starts sending `count` frames of `size` bytes every `periodNanos` on `socket`
    /// (connected to the client); `trailer` is sent once after the last frame (FRAMES_SENT).
    init(socket: Socket, session: UInt32, count: Int, size: Int, periodNanos: UInt64, then trailer: @escaping @Sendable (Int) -> [UInt8]) {
        CPUAccount.startThread("udp frame sender") { [self] in
            do {
                var timetable = FrameTimetable(frames: count, periodNanos: periodNanos)
                var datagram = UDPFrameDatagram(session: session, size: size, tag: nil)
                let sent = try timetable.send(stopped: { self.stopped }) { seq in
                    try datagram.send(seq, on: socket)
                    outcome.withLock { $0.sent = seq + 1 }
                }
                if !stopped { _ = try? trailer(sent).withUnsafeBytes { try socket.send($0) } }
            } catch {
                // Shut down (the session ended) or the cell's deadline: the client counts what it missed.
            }
            outcome.withLock { $0.done = true }
            ended.signal()
        }
    }

    private var stopped: Bool { stopRequested.withLock { $0 } }

    /// Whether every frame has gone out (or the sender gave up).
    var isDone: Bool { outcome.withLock { $0.done } }

    /// Frames handed to the kernel so far.
    var sent: Int { outcome.withLock { $0.sent } }

    /// Stops after the frame in progress (within 5 ms during a long period) and waits;
    /// the session is over, so an error of the sender's goes unread.
    func stop() {
        stopRequested.withLock { $0 = true }
        ended.wait()
        ended.signal()
    }
}
