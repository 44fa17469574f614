import Foundation
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchWorkloads
import Synchronization

/// The server's half of the workloads beyond the upload (docs/WORKLOADS.md): it keeps
/// no knowledge of the cell's workload; the client's frames say what to do, and every
/// number in them is bounded by `WorkloadSpec.Limits` (a hostile client over `serve`
/// gets a protocol error, not a gigabyte buffer).
///
/// Data the server sends on its own (a PULL's messages, a FRAME_PULL's frames) goes
/// from a sender thread, so the serving thread keeps reading the client's frames
/// meanwhile (bidir: both directions at once). Every write, the serving thread's
/// echoes and reports too, goes through one `StreamServerWriter`, whole frames at a time.
struct StreamWorkloadServerKinds {
    let who: String
    let writer: StreamServerWriter
    /// The isochronous frames the client sent, on this clock.
    private var arrivals = FrameArrivals()
    private var sender: StreamServerSender?

    init(who: String, writer: StreamServerWriter) {
        self.who = who
        self.writer = writer
    }

    /// Answers a workload frame; false when `type` is not one.
    mutating func answer(_ type: MessageType, body: UnsafeRawBufferPointer, arrivedAt: UInt64) throws -> Bool {
        typealias L = WorkloadSpec.Limits
        switch type {
        case .request:
            guard body.count == 8 else { throw malformed(type, body) }
            let seq = body.readBE(UInt32.self, at: 0)
            let size = Int(body.readBE(UInt32.self, at: 4))
            guard size >= 1, size <= L.messageBytes else { throw bound("a response of \(size) bytes", "1...\(L.messageBytes)") }
            try writer.write(StreamWorkloadFrames.dataFrame(size: size) + StreamFraming.controlFrame(.response, [seq]), "answering a REQUEST")
        case .frame:
            guard body.count == 4 else { throw malformed(type, body) }
            let seq = body.readBE(UInt32.self, at: 0)
            // Bounded, so a delay's arithmetic (seq x period) cannot overflow.
            guard arrivals.record(seq: UInt64(seq), at: arrivedAt) != .outOfBounds else {
                throw bound("frame \(seq) (the \(arrivals.arrivals.count + 1)th)", "at most \(L.frames) frames")
            }
        case .frameEnd:
            guard body.count == 20 else { throw malformed(type, body) }
            let sent = Int(body.readBE(UInt32.self, at: 0))
            let period = body.readBE(UInt64.self, at: 4)
            let deadline = body.readBE(UInt64.self, at: 12)
            guard L.periodMs.contains(Double(period) / 1e6) else { throw bound("a period of \(Double(period) / 1e6) ms", "\(L.periodMs)") }
            let report = arrivals.report(sent: sent, periodNanos: period, deadlineNanos: deadline)
            arrivals = FrameArrivals()
            try writer.write(FrameReportFrames.encode(report), "sending the FRAME_REPORT")
        case .pull:
            guard body.count == 16 else { throw malformed(type, body) }
            let count = Int(clamping: body.readBE(UInt64.self, at: 0))
            let size = Int(clamping: body.readBE(UInt64.self, at: 8))
            guard count >= 1, count <= 100_000_000 else { throw bound("a PULL of \(count) messages", "1...100000000") }
            guard size >= 1, size <= StreamFraming.maxMessageSize else {
                throw bound("a PULL of \(size)-byte messages", "1...\(StreamFraming.maxMessageSize)")
            }
            try startSender { try $0.push(count: count, size: size) }
        case .framePull:
            guard body.count == 16 else { throw malformed(type, body) }
            let frames = Int(body.readBE(UInt32.self, at: 0))
            let size = Int(body.readBE(UInt32.self, at: 4))
            let period = body.readBE(UInt64.self, at: 8)
            guard frames >= 1, frames <= L.frames else { throw bound("a FRAME_PULL of \(frames) frames", "1...\(L.frames)") }
            guard size >= 1, size <= L.frameBytes else { throw bound("\(size)-byte frames", "1...\(L.frameBytes)") }
            let ms = Double(period) / 1e6
            guard L.periodMs.contains(ms) else { throw bound("a period of \(ms) ms", "\(L.periodMs)") }
            try startSender { try $0.frames(count: frames, size: size, periodNanos: period) }
        default:
            return false
        }
        return true
    }

    /// The sender thread of a PULL or FRAME_PULL; one at a time.
    private mutating func startSender(_ work: @escaping @Sendable (StreamServerWriter) throws -> Void) throws {
        if let sender, !sender.isDone { throw TransportError("\(who): a PULL or FRAME_PULL while the last one is still being sent") }
        try sender?.join()
        sender = StreamServerSender(who: who, writer: writer, work)
    }

    /// At GOODBYE: waits for the sender and throws its error.
    mutating func finish() throws {
        defer { sender = nil }
        try sender?.join()
    }

    /// The serving ended otherwise: a sender still writing is ended (the stream shut
    /// down) and waited for, so the transport may close what it writes to.
    mutating func abandon() {
        guard let s = sender else { return }
        if !s.isDone { writer.shutdown() }
        try? s.join()
        sender = nil
    }

    private func malformed(_ type: MessageType, _ body: UnsafeRawBufferPointer) -> TransportError {
        TransportError("\(who): malformed \(type) frame (\(body.count) bytes)")
    }

    private func bound(_ what: String, _ allowed: String) -> TransportError {
        TransportError("\(who): the client asked for \(what); allowed: \(allowed)")
    }
}

/// Every write of a serving connection, whole frames at a time, from the serving thread
/// and a sender thread.
// @unchecked: ByteStream (a socket or GnuTLS session) is not Sendable; every write goes through `lock`, and the one reader stays on the serving thread (the kernel and GnuTLS allow one reader beside one writer).
final class StreamServerWriter: @unchecked Sendable {
    private let stream: any ByteStream
    private let who: String
    private let lock = Mutex(())

    init(_ stream: any ByteStream, who: String) {
        self.stream = stream
        self.who = who
    }

    func write(_ bytes: UnsafeRawBufferPointer, _ phase: String) throws {
        try lock.withLock { _ in
            guard try stream.writeAll(bytes) else { throw TransportError("\(who): the client closed the connection \(phase)") }
        }
    }

    func write(_ bytes: [UInt8], _ phase: String) throws {
        try bytes.withUnsafeBytes { try write($0, phase) }
    }

    /// Ends a sender blocked in a write (the serving thread failed).
    func shutdown() { stream.shutdown() }

    /// `count` DATA frames of `size` bytes, then PUSHED {messages, bytes}; about 256 KiB a write.
    func push(count: Int, size: Int) throws {
        let perBatch = max(1, min(count, StreamWorkloadClient.batchBytes / (StreamFraming.headerSize + size)))
        let batch = StreamWorkloadFrames.dataFrames(perBatch, size: size)
        var left = count
        while left > 0 {
            let n = min(left, perBatch)
            try batch.withUnsafeBytes {
                try write(UnsafeRawBufferPointer(rebasing: $0[0..<(n * (StreamFraming.headerSize + size))]), "during a PULL")
            }
            left -= n
        }
        try write(StreamFraming.controlFrame(.pushed, [UInt64(count), UInt64(count * size)]), "after a PULL")
    }

    /// `count` frames of `size` bytes, frame i at start + i x period, then FRAMES_SENT.
    func frames(count: Int, size: Int, periodNanos: UInt64) throws {
        var timetable = FrameTimetable(frames: count, periodNanos: periodNanos)
        try StreamWorkloadFrames.sendFrames(on: &timetable, size: size) { try write($0, "during a FRAME_PULL") }
        try write(StreamFraming.controlFrame(.framesSent, [UInt32(count)]), "after a FRAME_PULL")
    }
}

/// A PULL's or FRAME_PULL's sending thread.
final class StreamServerSender: Sendable {
    private let ended = DispatchSemaphore(value: 0)
    private let outcome = Mutex<(any Error)?>(nil)
    private let done = Mutex(false)

    init(who: String, writer: StreamServerWriter, _ work: @escaping @Sendable (StreamServerWriter) throws -> Void) {
        CPUAccount.startThread("\(who) sender") { [self] in
            do { try work(writer) } catch { outcome.withLock { $0 = error } }
            done.withLock { $0 = true }
            ended.signal()
        }
    }

    var isDone: Bool { done.withLock { $0 } }

    func join() throws {
        ended.wait()
        ended.signal()
        if let error = outcome.withLock({ $0 }) { throw error }
    }
}

/// Frames both halves build.
public enum StreamWorkloadFrames {
    /// One DATA frame of `size` bytes (a request's or response's body).
    static func dataFrame(size: Int) -> [UInt8] { dataFrames(1, size: size) }

    /// `n` identical DATA frames of `size` bytes back to back.
    static func dataFrames(_ n: Int, size: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: n * (StreamFraming.headerSize + size))
        out.withUnsafeMutableBytes { StreamFraming.writeDataFrames(n, bodySize: size, to: $0.baseAddress!) }
        return out
    }

    /// Frame i (its DATA, then FRAME {seq}) written on the flow's `FrameTimetable`.
    static func sendFrames(on timetable: inout FrameTimetable, size: Int, write: (UnsafeRawBufferPointer) throws -> Void) throws {
        var frame = dataFrame(size: size) + StreamFraming.controlFrame(.frame, [UInt32(0)])
        let seqAt = frame.count - 4
        _ = try timetable.send { seq in
            frame.withUnsafeMutableBytes { $0.storeBytes(of: UInt32(seq).bigEndian, toByteOffset: seqAt, as: UInt32.self) }
            try frame.withUnsafeBytes { try write($0) }
        }
    }
}

/// FRAME_REPORT: {received u32, late u32, then up to `delaysPerFrame` delays, u32
/// microseconds each}, repeated until every received frame's delay is sent.
public enum FrameReportFrames {
    public static let delaysPerFrame = 4_096
    public static let maxBody = 8 + 4 * delaysPerFrame

    static func encode(_ r: FrameReport) -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        repeat {
            let chunk = r.delayNanos[i..<min(r.delayNanos.count, i + delaysPerFrame)]
            out += StreamFraming.controlFrame(
                .frameReport,
                [UInt32(r.received), UInt32(r.late)]
                    + chunk.map { UInt32(clamping: $0 / 1_000) as any FixedWidthInteger })
            i += chunk.count
        } while i < r.delayNanos.count
        return out
    }

    /// Appends one FRAME_REPORT's delays; returns (received, late) it states.
    static func decode(_ body: UnsafeRawBufferPointer, into delays: inout [UInt64]) -> (received: Int, late: Int)? {
        guard body.count >= 8, (body.count - 8) % 4 == 0 else { return nil }
        for k in stride(from: 8, to: body.count, by: 4) { delays.append(UInt64(body.readBE(UInt32.self, at: k)) * 1_000) }
        return (Int(body.readBE(UInt32.self, at: 0)), Int(body.readBE(UInt32.self, at: 4)))
    }
}
