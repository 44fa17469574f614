import Foundation
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchWorkloads

/// The server's memory of one resumable client (`reconnect`, docs/protocol/tcp.md
/// "Reconnect"): the session token it handed out, the DATA count and bulk series that
/// outlive a connection, and which connection holds them now. One per cell; every
/// connection's `StreamWorkloadServer.serve` shares it.
///
/// A connection owns the count from its RESUMABLE or RESUME until its loop ends; then
/// the count goes back here without the DATA frame the cut left half-read. A RESUME on
/// a new connection shuts the owner's stream down and waits for that hand-back, so the
/// offset it answers is final: every message is counted once, on one connection.
// @unchecked: every field is guarded by `lock`.
public final class StreamResumeHost: @unchecked Sendable {
    private let lock = NSCondition()
    private var token: UInt64?
    private var stored = ReceivedMessages(series: BulkSeriesRecorder(maxIntervals: StreamFraming.maxReportIntervals))
    private var owner: Int?
    private var ownerStream: (any ByteStream)?
    private var nextID = 0
    private var resumes = 0
    private var goodbye = false
    /// How long a RESUME waits for the replaced connection's loop to hand its count back.
    static let handBackNanos: UInt64 = 5_000_000_000

    public init() {}

    /// Resumes accepted so far (connections re-made).
    public var reconnects: Int { locked { resumes } }
    /// Whether the client ended its session with GOODBYE: no further connection comes.
    public var finished: Bool { locked { goodbye } }

    /// A number for a new connection's loop.
    func register() -> Int {
        locked {
            nextID += 1
            return nextID
        }
    }

    /// RESUMABLE on connection `id`, before any DATA: a fresh random token, once per cell.
    func grant(to id: Int, stream: any ByteStream) throws -> UInt64 {
        try locked {
            guard token == nil else { throw TransportError("protocol error: a second RESUMABLE in the cell") }
            let t = UInt64.random(in: 1...UInt64.max)
            token = t
            owner = id
            ownerStream = stream
            return t
        }
    }

    /// RESUME {token} on connection `id`: the count the client carries on from. The
    /// connection holding it is shut down first. An unknown token, a cell past
    /// `ReconnectPolicy.maxReconnects`, or an owner that does not let go is an error
    /// (the caller's connection then closes).
    func resume(_ presented: UInt64, on id: Int, stream: any ByteStream) throws -> ReceivedMessages {
        lock.lock()
        defer { lock.unlock() }
        guard let token, presented == token else { throw TransportError("RESUME with an unknown session token") }
        guard resumes < ReconnectPolicy.maxReconnects else {
            throw TransportError("RESUME refused: the cell already reconnected \(ReconnectPolicy.maxReconnects) times")
        }
        guard !goodbye else { throw TransportError("RESUME after the client's GOODBYE") }
        if owner != nil { ownerStream?.shutdown() }
        let limit = Date(timeIntervalSinceNow: Double(Self.handBackNanos) / 1e9)
        while owner != nil {
            guard lock.wait(until: limit) else { throw TransportError("RESUME: the replaced connection did not end within 5 s") }
        }
        resumes += 1
        owner = id
        ownerStream = stream
        return stored
    }

    /// Connection `id`'s loop ended: if it held the count, the count comes back here
    /// without the `partialBytes` of a DATA frame the cut left unfinished.
    func release(_ id: Int, count: ReceivedMessages, partialBytes: Int) {
        locked {
            guard owner == id else { return }
            stored = count
            stored.bytes -= partialBytes
            owner = nil
            ownerStream = nil
            lock.broadcast()
        }
    }

    /// The client said GOODBYE.
    func markFinished() { locked { goodbye = true } }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}

/// One connection's part in a resumable session, inside `StreamWorkloadServer.serve`:
/// answers RESUMABLE and RESUME, and hands the count back when the loop ends.
struct StreamResumeConnection {
    let host: StreamResumeHost
    let id: Int
    let stream: any ByteStream
    /// Whether this connection holds the session's count.
    private(set) var owns = false

    init(host: StreamResumeHost, stream: any ByteStream) {
        self.host = host
        self.stream = stream
        id = host.register()
    }

    /// RESUMABLE (empty body) or RESUME {token u64}: the reply frame to send; `count`
    /// becomes the session's count. `sawFrames`: anything but HELLO came before, which
    /// a RESUME must not follow (the count would mix two connections).
    mutating func answer(
        _ type: MessageType, body: UnsafeRawBufferPointer, count: inout ReceivedMessages,
        sawFrames: Bool
    ) throws -> [UInt8] {
        guard !owns else { throw TransportError("protocol error: \(type) on a connection that already holds the session") }
        if type == .resumable {
            guard body.isEmpty, count.messages == 0, count.bytes == 0 else {
                throw TransportError("protocol error: RESUMABLE with a body or after DATA")
            }
            let token = try host.grant(to: id, stream: stream)
            owns = true
            return StreamFraming.controlFrame(.session, [token])
        }
        guard body.count == 8, !sawFrames else { throw TransportError("protocol error: RESUME must be the first frame after HELLO, {token u64}") }
        count = try host.resume(body.readBE(UInt64.self, at: 0), on: id, stream: stream)
        owns = true
        return StreamFraming.controlFrame(.resumed, [UInt64(count.messages), UInt64(count.bytes)])
    }

    /// The loop ended (GOODBYE, an error, the stream's end).
    func end(count: ReceivedMessages, reader: StreamFrameReader, goodbye: Bool) {
        guard owns else { return }
        if goodbye { host.markFinished() }
        host.release(id, count: count, partialBytes: reader.partialDataBytes)
    }
}
