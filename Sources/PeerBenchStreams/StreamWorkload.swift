import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchWorkloads

/// The standard workload over a reliable byte stream (docs/protocol/tcp.md), both
/// halves, shared by every stream transport: TCP puts it on a socket, TLS on a TLS
/// session. The transport does its own set-up and teardown around it; the frames on
/// the wire are the same.

/// A greeting exchanged before the probes when the transport has no handshake of its
/// own to agree on a protocol version (TCP's HELLO); TLS needs none.
public struct StreamGreeting: Sendable {
    /// The whole HELLO frame, header included; the server answers with the same kind.
    public let frame: [UInt8]
    /// What the protocol is called in errors, e.g. "PeerBench TCP version 1".
    public let name: String
    /// Whether a HELLO body names this protocol and version.
    public let accepts: @Sendable (UnsafeRawBufferPointer) -> Bool

    public init(frame: [UInt8], name: String, accepts: @escaping @Sendable (UnsafeRawBufferPointer) -> Bool) {
        self.frame = frame
        self.name = name
        self.accepts = accepts
    }
}

/// The client's half: greeting, RTT probes, bulk, GOODBYE. Error texts start with
/// `"<transport> client:"`.
public struct StreamWorkloadClient {
    /// Bytes per write in the bulk phase: many frames per system call, so the sender
    /// costs less than iperf3's one write per message.
    public static let batchBytes = 256 << 10
    /// Bytes per write with loaded probes: a write blocks until its bytes fit in the
    /// socket buffer, and a probe can only go between writes, so smaller writes keep
    /// probes on schedule (32 KiB is 13 ms at 20 Mbit/s; 256 KiB would be 105 ms).
    public static let loadedBatchBytes = 32 << 10

    let transport: String
    private let who: String
    /// The connection's stream and reader; a helper thread of the bulk phase borrows
    /// them (`HelperConnection`).
    let stream: any ByteStream
    let reader: StreamFrameReader
    /// The application's time per message (`CellContext.appLoop`): the send loop's
    /// probes and per-message writes go no faster than one per `sendNanos`, and the
    /// pipelined probes' echoes are taken one per `receiveNanos`.
    let appLoop: AppLoop

    public init(_ transport: String, over stream: any ByteStream, appLoop: AppLoop = .none) {
        self.transport = transport
        who = "\(transport) client"
        self.stream = stream
        self.appLoop = appLoop
        reader = StreamFrameReader(stream)
    }

    func send(_ bytes: UnsafeRawBufferPointer, during phase: String) throws {
        guard try stream.writeAll(bytes) else { throw TransportError("\(who): the server closed the connection \(phase)") }
    }

    func nextControl(_ waitingFor: String, closed phase: String) throws -> (type: MessageType, body: UnsafeRawBufferPointer) {
        var ignored = ReceivedMessages()  // the client receives no DATA
        reader.waitingFor = waitingFor
        guard let frame = try reader.nextControl(counting: &ignored) else {
            throw TransportError("\(who): the server closed the connection \(phase)")
        }
        return frame
    }

    /// HELLO, answered by the server's HELLO: both sides speak the same version, and
    /// no unacknowledged bytes are in flight when the first probe is timed (with Nagle
    /// on, a probe sent behind an unacknowledged HELLO would wait for its ACK).
    public func greet(_ greeting: StreamGreeting) throws {
        try greeting.frame.withUnsafeBytes { try send($0, during: "before HELLO") }
        let reply = try nextControl("the server's HELLO", closed: "instead of answering HELLO")
        guard reply.type == .hello, greeting.accepts(reply.body) else {
            throw TransportError("\(who): the server did not answer with a \(greeting.name) HELLO")
        }
    }

    /// Ping-pongs: PROBE {seq u32, client time u64}, answered by ECHO with the same body.
    public func probe(count: Int, into m: inout TransportMeasurement) throws {
        m.rttNanos.reserveCapacity(count)
        m.probesSent = 0
        m.rttMethod = .pingPong
        for seq in 0..<count {
            m.rttNanos.append(try probeOnce(seq: seq, phase: "during the RTT probes") { m.probesSent = seq + 1 })
        }
    }

    /// The idle probes by `method`: ping-pong (`probe(count:into:)`), or pipelined
    /// (`probePipelined(count:into:)`). Either way `m.rttMethod` says which ran.
    public func probe(count: Int, method: RTTMethod, spacingNanos: UInt64 = 0, into m: inout TransportMeasurement) throws {
        switch method {
        case .pingPong: try probe(count: count, into: &m)
        case .pipelined: try probePipelined(count: count, spacingNanos: spacingNanos, into: &m)
        case .sendLoop:
            try probePipelined(count: count, spacingNanos: 0, stampOnly: true, into: &m)
            m.rttMethod = .sendLoop
        }
    }

    /// Pipelined probes (the field study's method): `count` PROBE frames, each written
    /// with its own send() as soon as the previous one is, without waiting for echoes,
    /// while a second thread reads the ECHOs and times each on arrival. The socket's
    /// options stay as the transport set them: with Nagle on, probes written while
    /// earlier ones are unacknowledged coalesce, as on the phones. RTTs in send order.
    /// With `spacingNanos`, probe i is written at start + i x spacing (never waiting for echoes).
    /// With `stampOnly` (the send loop: the study app's probe carried its send time and
    /// nothing else), a PROBE's body is the 8-byte client time alone, a 13-byte frame
    /// instead of 17: the 1 000 probes' 13 kB then fit Linux's initial window of 10
    /// segments, where 17 kB did not (docs/FIELD-STUDY.md). The stream keeps them in order.
    public func probePipelined(count: Int, spacingNanos: UInt64 = 0, stampOnly: Bool = false, into m: inout TransportMeasurement) throws {
        m.rttMethod = .pipelined
        m.probesSent = 0
        guard count > 0 else { return }
        let collector = PipelinedEchoCollector(self, who: who, expected: count, stampOnly: stampOnly)
        collector.start()
        let bodySize = stampOnly ? 8 : 12
        var frame = [UInt8](repeating: 0, count: StreamFraming.headerSize + bodySize)
        var times = PipelinedProbeTimes()
        let app = MessageSchedule(appLoop, start: MonotonicClock.now())
        // A failed write ends the cell; the reader then ends when the connection closes.
        for seq in 0..<count {
            times.waitForSend(seq, spacing: spacingNanos)
            app?.wait(for: seq)
            let t = MonotonicClock.now()
            frame.withUnsafeMutableBytes { p in
                StreamFraming.writeHeader(.probe, bodyLength: bodySize, to: p.baseAddress!)
                if !stampOnly { p.storeBytes(of: UInt32(truncatingIfNeeded: seq).bigEndian, toByteOffset: 5, as: UInt32.self) }
                p.storeBytes(of: t.bigEndian, toByteOffset: StreamFraming.headerSize + bodySize - 8, as: UInt64.self)
            }
            try frame.withUnsafeBytes { try send($0, during: "during the pipelined RTT probes") }
            times.sent(at: MonotonicClock.now())
            m.probesSent = seq + 1
        }
        let answers = try collector.finish()
        m.rttNanos = answers.rtts
        times.firstEchoAt = answers.firstAt
        times.lastEchoAt = answers.lastAt
        m.extra[PipelinedProbeTimes.extraKey] = times.json
        if let loop = appLoop.extra { m.extra[AppLoop.extraKey] = loop }
    }

    /// One PROBE and its ECHO; returns the RTT. `sent` runs once the PROBE is written.
    func probeOnce(seq: Int, phase: String, sent: () -> Void = {}) throws -> UInt64 {
        var frame = [UInt8](repeating: 0, count: StreamFraming.headerSize + 12)
        let t = MonotonicClock.now()
        frame.withUnsafeMutableBytes { p in
            StreamFraming.writeHeader(.probe, bodyLength: 12, to: p.baseAddress!)
            p.storeBytes(of: UInt32(truncatingIfNeeded: seq).bigEndian, toByteOffset: 5, as: UInt32.self)
            p.storeBytes(of: t.bigEndian, toByteOffset: 9, as: UInt64.self)
        }
        try frame.withUnsafeBytes { try send($0, during: phase) }
        sent()
        let echo = try nextControl("a probe echo", closed: phase)
        guard echo.type == .echo, echo.body.count == 12,
            echo.body.readBE(UInt32.self, at: 0) == UInt32(truncatingIfNeeded: seq),
            echo.body.readBE(UInt64.self, at: 4) == t
        else {
            throw TransportError("\(who): expected the echo of probe \(seq), got a \(echo.type) frame")
        }
        return MonotonicClock.elapsed(since: t)
    }

    /// The bulk phase with loaded probes on the flow `loadedProbes` names: `same` as
    /// `bulk(_:loadedProbes:into:)`; `separate` on `probeFlow`, a second connection of
    /// the same transport to the same server, already greeted, that carries only
    /// probes (ping-pong, one every interval) while this connection carries the data,
    /// and ends with GOODBYE after the REPORT.
    public func bulk(
        _ payload: Payload, loadedProbes: LoadedRttProbes?, probeFlow: StreamWorkloadClient?,
        writes: BulkWrites = .batched, into m: inout TransportMeasurement
    ) throws {
        guard let loadedProbes, loadedProbes.flow == .separate else {
            return try bulk(payload, loadedProbes: loadedProbes, writes: writes, into: &m)
        }
        guard let probeFlow else { throw TransportError("\(who): loaded probes on a separate flow need its connection") }
        let prober = SeparateFlowProber(probeFlow, probes: loadedProbes)
        prober.start()
        do { try bulk(payload, loadedProbes: nil, writes: writes, into: &m) } catch {
            prober.abandon()
            throw error
        }
        m.rttLoadedNanos = try prober.finish()
        try probeFlow.goodbye()
    }

    /// DATA frames, then END {messages u64, bytes u64}; the time runs until the
    /// server's REPORT, so it covers delivery, not just filling buffers. With
    /// `loadedProbes`, a PROBE goes between DATA batches (and after END until the
    /// REPORT) every interval, and its echo is timed into `m.rttLoadedNanos`.
    /// With `progress` (a resumed bulk phase, StreamResumableBulk.swift), the first
    /// `progress.offset` messages are not sent (the server holds them), the time runs
    /// from `progress.startedAt`, and `progress.handed` counts what was written.
    /// With `alsoDown` (a bidir workload), a PULL of the same payload goes first and the
    /// server's DATA is counted while this side's goes up.
    /// `writes` `.perMessage` hands every message to the socket with its own send (the
    /// field study app's send loop), so the stack, not this loop, decides how they coalesce.
    public func bulk(
        _ payload: Payload, loadedProbes: LoadedRttProbes? = nil, progress: BulkProgress? = nil, alsoDown: Bool = false,
        writes: BulkWrites = .batched, into m: inout TransportMeasurement
    ) throws {
        let frameSize = StreamFraming.headerSize + payload.size
        let perBatch =
            writes == .perMessage
            ? 1
            : max(1, min(payload.count, (loadedProbes == nil ? Self.batchBytes : Self.loadedBatchBytes) / frameSize))
        // Every DATA frame is identical, so one prebuilt batch is sent over and over:
        // no per-message work or allocation in the loop.
        let end = StreamFraming.controlFrame(
            .end,
            [
                UInt64(payload.count), UInt64(payload.count * payload.size),
                StreamFraming.endFlagReceiverSpan,
            ])
        // Room for END after the last batch: it leaves in the same write as the final
        // DATA bytes, so Nagle cannot hold it back until the data is acknowledged.
        let batch = Self.dataBatch(frames: perBatch, bodySize: payload.size, room: end.count)
        defer { batch.deallocate() }
        // A reader thread for the whole bulk phase, with or without loaded probes: it
        // takes the REPORT (and the probes' ECHOs), and if the server goes away it ends
        // a write blocked on a window that will never open (StreamEchoCollector).
        let collector = StreamEchoCollector(self, who: who, expectsEchoes: loadedProbes != nil, expectsPush: alsoDown)
        collector.start()
        var collected = false
        defer { if !collected { collector.abandon() } }
        func write(_ bytes: UnsafeRawBufferPointer) throws {
            // A write the reader's shutdown ended fails with EPIPE; the reader's error says
            // why. A write that failed on its own (the send timeout) waits 1 s for nothing.
            do { try send(bytes, during: "during the bulk phase") } catch {
                throw collector.failureBeforeReport(waitingUpTo: 1_000_000_000) ?? error
            }
        }
        var probes = LoadedProbeSchedule(loadedProbes)
        let start = progress?.startedAt ?? MonotonicClock.now()
        // The app's send loop hands each message over no faster than its cost allows.
        let app = writes == .perMessage ? MessageSchedule(appLoop, start: start) : nil
        if app != nil, let loop = appLoop.extra { m.extra[AppLoop.extraKey] = loop }
        if alsoDown { try StreamFraming.controlFrame(.pull, [UInt64(payload.count), UInt64(payload.size)]).withUnsafeBytes { try write($0) } }
        probes.begin(at: start)
        var left = payload.count - (progress?.offset ?? 0)
        // Resumed after every message had arrived (the REPORT was lost): END alone.
        if left <= 0 { try end.withUnsafeBytes { try write($0) } }
        while left > 0 {
            if let frame = probes.probeIfDue() { try frame.withUnsafeBytes { try write($0) } }
            app?.wait(for: payload.count - left)
            let n = min(left, perBatch)
            var bytes = n * frameSize
            if n == left {
                // The batch is not reused after this, so END may overwrite frame n.
                end.withUnsafeBytes { batch.baseAddress!.advanced(by: bytes).copyMemory(from: $0.baseAddress!, byteCount: end.count) }
                bytes += end.count
            }
            try write(UnsafeRawBufferPointer(rebasing: batch[0..<bytes]))
            left -= n
            progress?.handed += n
        }
        // The data may still be queued for a while: with loaded probes, keep probing until the REPORT.
        while !collector.waitForReport(nanos: loadedProbes == nil ? nil : probes.nanosUntilDue()) {
            if let frame = probes.probeIfDue() { try frame.withUnsafeBytes { try write($0) } }
        }
        collected = true
        let answers = try collector.finish(probesSent: probes.sent)
        // Until the REPORT was read, not until this thread woke up to it (0 for a
        // server that sent one before the first DATA: the size check in `record` fails it).
        m.bulkNanos = answers.reportAt > start ? answers.reportAt - start : 0
        if loadedProbes != nil { m.rttLoadedNanos = answers.rtts }
        let up = try decode(report: answers.report, of: payload)
        if let down = answers.down {
            // bidir: both directions, and the upload's series (the server's).
            let downFlow = try downFlow(count: down.count, pushed: down.pushed, at: down.pushedAt, start: start)
            m.recordDirections(
                up: DirectionalDelivery.Flow(delivery: up.delivery, nanos: m.bulkNanos ?? 0), down: downFlow, receiverSpanNanos: nil,
                expected: payload, transport: transport)
            m.bulkSeries = up.report.series
        } else {
            m.recordUpload(up.delivery, series: up.report.series, receiverSpanNanos: up.report.spanNanos, expected: payload, transport: transport)
        }
    }

    /// `frames` identical DATA frames of `bodySize` bytes back to back, with `room`
    /// bytes spare after them (for END); the caller deallocates it.
    private static func dataBatch(frames: Int, bodySize: Int, room: Int) -> UnsafeMutableRawBufferPointer {
        let batch = UnsafeMutableRawBufferPointer.allocate(byteCount: frames * (StreamFraming.headerSize + bodySize) + room, alignment: 16)
        StreamFraming.writeDataFrames(frames, bodySize: bodySize, to: batch.baseAddress!)
        return batch
    }

    /// The server's REPORT `body`: what arrived up, its series and the receiver's span.
    private func decode(report body: [UInt8], of payload: Payload) throws -> (delivery: Delivery, report: StreamReport) {
        guard let decoded = StreamReport(body) else {
            throw TransportError("\(who): malformed REPORT (\(body.count) bytes)")
        }
        let delivery = Delivery(
            sentMessages: payload.count, receivedMessages: decoded.messages,
            sentBytes: payload.count * payload.size, receivedBytes: decoded.bytes)
        return (delivery, decoded)
    }

    /// GOODBYE, then wait for the server to close: both sides end cleanly.
    public func goodbye() throws {
        try StreamFraming.controlFrame(.goodbye, [any FixedWidthInteger]()).withUnsafeBytes { try send($0, during: "before GOODBYE") }
        var ignored = ReceivedMessages()
        reader.waitingFor = "the server to close after GOODBYE"
        if let extra = try reader.nextControl(counting: &ignored) {
            throw TransportError("\(who): unexpected \(extra.type) frame after GOODBYE")
        }
    }
}

/// The server's half: answers one client's frames until its GOODBYE, then returns
/// (the transport closes, which is the answer the client waits for). Error texts
/// start with `"<transport> server:"`.
public enum StreamWorkloadServer {
    /// With `resume` (the cell's `reconnect`), RESUMABLE and RESUME are answered and the
    /// DATA count lives in the host across the client's connections (StreamResumeHost.swift);
    /// without, those frames are protocol errors and nothing changes on the wire.
    /// With `appLoop` (`CellContext.appLoop`), the app takes each frame one receive
    /// cost after the one before (`StreamFrameReader.appLoop`) and answers a probe in the
    /// callback that took it.
    public static func serve(
        _ transport: String, over stream: any ByteStream, greeting: StreamGreeting?,
        resume host: StreamResumeHost? = nil, appLoop: AppLoop = .none
    ) throws {
        let who = "\(transport) server"
        let writer = StreamServerWriter(stream, who: who)
        func send(_ bytes: UnsafeRawBufferPointer, _ phase: String) throws { try writer.write(bytes, phase) }
        var kinds = StreamWorkloadServerKinds(who: who, writer: writer)
        defer { kinds.abandon() }
        let reader = StreamFrameReader(stream)
        reader.appLoop = AppReceiveLoop(appLoop)
        reader.waitingFor = "the client's next frame"
        var count = ReceivedMessages(series: BulkSeriesRecorder(maxIntervals: StreamFraming.maxReportIntervals))
        var resume = host.map { StreamResumeConnection(host: $0, stream: stream) }
        var saidGoodbye = false
        defer { resume?.end(count: count, reader: reader, goodbye: saidGoodbye) }
        var greeted = greeting == nil
        var sawFrames = false
        var echoes = EchoBatch()
        while let frame = try reader.nextControl(counting: &count) {
            if frame.type != .probe { try echoes.flush(writer) }
            switch frame.type {
            case .hello:
                guard let greeting else { throw TransportError("\(who): unexpected hello frame from the client") }
                guard greeting.accepts(frame.body) else {
                    throw TransportError("\(who): the client's HELLO is not \(greeting.name)")
                }
                greeted = true
                try greeting.frame.withUnsafeBytes { try send($0, "after HELLO") }
            case .probe:
                echoes.add(frame.body)
                if reader.appLoop != nil {
                    // The app answers each probe in the callback that took it.
                    MonotonicClock.sleep(until: reader.takenAt)
                    try echoes.flush(writer)
                } else if !reader.hasBufferedControlFrame {
                    try echoes.flush(writer)
                }
            case .end:
                try report(frame.body, count: count, send: send)
            case .goodbye:
                try kinds.finish()
                saidGoodbye = true
                return
            case .pull, .request, .frame, .frameEnd, .framePull:
                _ = try kinds.answer(frame.type, body: frame.body, arrivedAt: reader.filledAt)
            case .resumable where resume != nil && greeted, .resume where resume != nil && greeted:
                let first = !sawFrames && count.messages == 0 && count.bytes == 0
                try resume!.answer(frame.type, body: frame.body, count: &count, sawFrames: !first)
                    .withUnsafeBytes { try send($0, "after \(frame.type)") }
            case .echo, .report, .data, .resumable, .session, .resume, .resumed, .pushed, .response, .frameReport, .framesSent,
                // quic's own: no stream client sends them.
                .probeHello, .series, .frameArrivals, .flow, .flowReport:
                throw TransportError("\(who): unexpected \(frame.type) frame from the client")
            }
            if !greeted { throw TransportError("\(who): the client did not start with HELLO") }
            if frame.type != .hello { sawFrames = true }
        }
        throw TransportError("\(who): the client closed the connection without GOODBYE")
    }

    /// The echoes of the probes one read brought, written together once the buffer
    /// holds no further whole frame: one write per read, as an app answers what one
    /// receive delivered. One write per echo would, with Nagle on, hold every echo
    /// but the first of a pipelined batch until the client's next batch acknowledged
    /// it: a whole extra round (docs/FIELD-STUDY.md). One probe per read (ping-pong,
    /// loaded probes) is answered at once, as before.
    struct EchoBatch {
        private var bytes: [UInt8] = []

        /// An ECHO of a PROBE's body, unchanged: the client matches sequence and timestamp.
        mutating func add(_ body: UnsafeRawBufferPointer) {
            let at = bytes.count
            bytes.append(contentsOf: repeatElement(0, count: StreamFraming.headerSize))
            bytes.withUnsafeMutableBytes { StreamFraming.writeHeader(.echo, bodyLength: body.count, to: $0.baseAddress! + at) }
            bytes.append(contentsOf: body)
        }

        mutating func flush(_ writer: StreamServerWriter) throws {
            guard !bytes.isEmpty else { return }
            try writer.write(bytes, "during the RTT probes")
            bytes.removeAll(keepingCapacity: true)
        }
    }

    /// END {messages, bytes[, flags]}: a client that knows the receiver's span asks for
    /// it; an older one gets the REPORT it can read.
    private static func report(
        _ body: UnsafeRawBufferPointer, count: ReceivedMessages,
        send: (UnsafeRawBufferPointer, String) throws -> Void
    ) throws {
        let flags = body.count >= 24 ? body.readBE(UInt64.self, at: 16) : 0
        let span = flags & StreamFraming.endFlagReceiverSpan != 0 ? count.spanNanos : nil
        try StreamReport(messages: count.messages, bytes: count.bytes, series: count.series?.series, spanNanos: span).frame()
            .withUnsafeBytes { try send($0, "before the REPORT") }
    }
}
