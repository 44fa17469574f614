import Foundation
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchWorkloads
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Isochronous frames on their own thread (docs/protocol/udp.md, "Isochronous"): FRAME
/// `seq` = i, `ts` = send time, `size` bytes, sent at start + i x period. The server sends
/// a FRAME_PULL's frames with one (and FRAMES_SENT after them) while its session thread
/// keeps reading; a `bidir` client sends its own with one while it reads the server's.
///
/// A sender that falls behind (a send blocked by a full buffer) sends the frames it owes
/// at once, as a real-time app with a queue would; the receiver sees them late.
final class UDPFrameSender: Sendable {
    private let stopRequested = Mutex(false)
    private let ended = DispatchSemaphore(value: 0)
    private let outcome = Mutex<(sent: Int, error: (any Error)?, done: Bool)>((0, nil, false))

    /// Starts sending `count` frames of `size` bytes every `periodNanos` on `socket`
    /// (connected to the peer); `tag` signs each (an authenticated client), `then` is
    /// sent once after the last frame (the server's FRAMES_SENT).
    init(
        name: String, socket: Socket, session: UInt32, count: Int, size: Int, periodNanos: UInt64, tag: UDPDatagramTag?,
        then trailer: (@Sendable (Int) -> [UInt8])? = nil
    ) {
        CPUAccount.startThread(name) { [self] in
            var failure: (any Error)?
            do {
                let sent = try send(socket: socket, session: session, count: count, size: size, periodNanos: periodNanos, tag: tag)
                if let trailer, !stopped { _ = try? trailer(sent).withUnsafeBytes { try socket.send($0) } }
            } catch {
                failure = error
            }
            outcome.withLock {
                $0.error = failure
                $0.done = true
            }
            ended.signal()
        }
    }

    private var stopped: Bool { stopRequested.withLock { $0 } }

    /// Whether every frame has gone out (or the sender failed).
    var isDone: Bool { outcome.withLock { $0.done } }

    /// Frames handed to the kernel so far.
    var sent: Int { outcome.withLock { $0.sent } }

    /// Waits for the last frame; throws the sender's error. Returns the frames sent.
    func join() throws -> Int {
        ended.wait()
        ended.signal()
        let o = outcome.withLock { $0 }
        if let error = o.error { throw error }
        return o.sent
    }

    /// Stops after the frame in progress (within 5 ms during a long period) and waits.
    func stop() {
        stopRequested.withLock { $0 = true }
        _ = try? join()
    }

    /// The flow's `FrameTimetable`, asking `stop()` at least every 5 ms during a long
    /// period. An ICMP error for an earlier frame (ECONNREFUSED: the peer's port is not
    /// open yet, or not any more) does not stop the schedule: the receiver counts what it missed.
    private func send(socket: Socket, session: UInt32, count: Int, size: Int, periodNanos: UInt64, tag: UDPDatagramTag?) throws -> Int {
        let untagged = UDPDatagramHeader.size + size
        var datagram = [UInt8](repeating: 0, count: untagged + (tag == nil ? 0 : UDPDatagramTag.size))
        datagram.withUnsafeMutableBytes { p in
            UDPDatagramHeader(type: .frame, session: session, sequence: 0, timestamp: 0).write(to: p.baseAddress!)
            for j in UDPDatagramHeader.size..<untagged { p[j] = UInt8(truncatingIfNeeded: j) }
        }
        var timetable = FrameTimetable(frames: count, periodNanos: periodNanos)
        return try timetable.send(stopped: { self.stopped }) { seq in
            let ok: Bool = try datagram.withUnsafeMutableBytes { p in
                UDPDatagramHeader.writeSequence(UInt64(seq), timestamp: MonotonicClock.now(), to: p.baseAddress!)
                tag?.write(over: p.baseAddress!, length: untagged)
                do {
                    return try socket.send(UnsafeRawBufferPointer(p)) != nil
                } catch let e as SystemError where e.errno == ECONNREFUSED {
                    return true
                }
            }
            guard ok else { throw TransportError("udp: timed out sending frame \(seq) (cell deadline)") }
            outcome.withLock { $0.sent = seq + 1 }
        }
    }
}
