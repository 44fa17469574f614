#if canImport(Glibc)
import Glibc
#endif
import PeerBenchCore

/// The client side: the standard workload over one TCP connection.
enum TCPClient {
    /// Bytes per send() in the bulk phase: many frames per system call, so the sender
    /// costs less than iperf3's one write per message.
    static let batchBytes = 256 << 10

    static func run(_ cell: CellContext, server: SocketAddress, options: TCPOptions) throws -> TransportMeasurement {
        var m = TransportMeasurement()
        let s = try Socket(family: server.family, type: Int32(SOCK_STREAM.rawValue))
        cell.track(s)
        defer { cell.untrack(s) }
        do {
            try options.apply(to: s)
            try cell.applyDeadline(to: s)
            let t0 = MonotonicClock.now()
            try s.connect(server)
            m.connectNanos = MonotonicClock.elapsed(since: t0)
            let reader = StreamFrameReader(s)
            try hello(s, reader)
            try probe(s, reader, count: cell.rttProbes, into: &m)
            if let payload = cell.payload, payload.count > 0 {
                try bulk(s, reader, payload: payload, into: &m)
                if let info = TCPInfo.read(s) { m.extra["tcp"] = info }
            }
            try goodbye(s, reader)
        } catch {
            if cell.cancellation.isCancelled { throw TransportError("tcp client cancelled at the cell deadline (\(error))") }
            throw error
        }
        return m
    }

    private static func send(_ s: Socket, _ bytes: [UInt8]) throws {
        guard try bytes.withUnsafeBytes({ try s.sendAll($0) }) else { throw TransportError("tcp client: the server closed the connection") }
    }

    /// HELLO, answered by the server's HELLO: both sides speak the same version, and
    /// no unacknowledged bytes are in flight when the first probe is timed (with Nagle
    /// on, a probe sent behind an unacknowledged HELLO would wait for its ACK).
    private static func hello(_ s: Socket, _ reader: StreamFrameReader) throws {
        try send(s, TCPHello.frame())
        var ignored = StreamDataCount()
        reader.waitingFor = "the server's HELLO"
        guard let reply = try reader.nextControl(counting: &ignored) else {
            throw TransportError("tcp client: the server closed the connection instead of answering HELLO")
        }
        guard reply.type == .hello, TCPHello.isHello(reply.body) else {
            throw TransportError("tcp client: the server did not answer with a PeerBench TCP version \(TCPHello.version) HELLO")
        }
    }

    /// Ping-pongs: PROBE {seq u32, client time u64}, answered by ECHO with the same body.
    private static func probe(_ s: Socket, _ reader: StreamFrameReader, count: Int, into m: inout TransportMeasurement) throws {
        m.rttNanos.reserveCapacity(count)
        m.probesSent = 0
        var frame = [UInt8](repeating: 0, count: StreamFraming.headerSize + 12)
        var ignored = StreamDataCount()
        reader.waitingFor = "a probe echo"
        for seq in 0..<count {
            let t = MonotonicClock.now()
            frame.withUnsafeMutableBytes { p in
                StreamFraming.writeHeader(.probe, bodyLength: 12, to: p.baseAddress!)
                p.storeBytes(of: UInt32(truncatingIfNeeded: seq).bigEndian, toByteOffset: 5, as: UInt32.self)
                p.storeBytes(of: t.bigEndian, toByteOffset: 9, as: UInt64.self)
            }
            try send(s, frame)
            m.probesSent = seq + 1
            guard let echo = try reader.nextControl(counting: &ignored) else {
                throw TransportError("tcp client: the server closed the connection during the RTT probes")
            }
            guard echo.type == .echo, echo.body.count == 12,
                  echo.body.readBE(UInt32.self, at: 0) == UInt32(truncatingIfNeeded: seq),
                  echo.body.readBE(UInt64.self, at: 4) == t else {
                throw TransportError("tcp client: expected the echo of probe \(seq), got a \(echo.type) frame")
            }
            m.rttNanos.append(MonotonicClock.elapsed(since: t))
        }
    }

    /// DATA frames, then END {messages u64, bytes u64}; the time runs until the
    /// server's REPORT, so it covers delivery, not just filling the socket buffer.
    private static func bulk(_ s: Socket, _ reader: StreamFrameReader, payload: Payload, into m: inout TransportMeasurement) throws {
        let frameSize = StreamFraming.headerSize + payload.size
        let perBatch = max(1, min(payload.count, batchBytes / frameSize))
        // Every DATA frame is identical, so one prebuilt batch is sent over and over:
        // no per-message work or allocation in the loop.
        let end = StreamFraming.controlFrame(.end, [UInt64(payload.count), UInt64(payload.count * payload.size)])
        // Room for END after the last batch: it leaves in the same send as the final
        // DATA bytes, so Nagle cannot hold it back until the data is acknowledged.
        let batch = UnsafeMutableRawBufferPointer.allocate(byteCount: perBatch * frameSize + end.count, alignment: 16)
        defer { batch.deallocate() }
        for i in 0..<perBatch {
            let f = batch.baseAddress! + i * frameSize
            StreamFraming.writeHeader(.data, bodyLength: payload.size, to: f)
            for j in 0..<payload.size { f.storeBytes(of: UInt8(truncatingIfNeeded: j), toByteOffset: StreamFraming.headerSize + j, as: UInt8.self) }
        }
        let start = MonotonicClock.now()
        var left = payload.count
        while left > 0 {
            let n = min(left, perBatch)
            var bytes = n * frameSize
            if n == left {
                // The batch buffer is not reused after this, so END may overwrite frame n.
                end.withUnsafeBytes { batch.baseAddress!.advanced(by: bytes).copyMemory(from: $0.baseAddress!, byteCount: end.count) }
                bytes += end.count
            }
            guard try s.sendAll(UnsafeRawBufferPointer(rebasing: batch[0..<bytes])) else {
                throw TransportError("tcp client: the server closed the connection during the bulk phase")
            }
            left -= n
        }
        var ignored = StreamDataCount()
        reader.waitingFor = "the server's REPORT"
        guard let report = try reader.nextControl(counting: &ignored) else {
            throw TransportError("tcp client: the server closed the connection before its REPORT")
        }
        m.bulkNanos = MonotonicClock.elapsed(since: start)
        guard report.type == .report, report.body.count == 16 else {
            throw TransportError("tcp client: expected REPORT, got a \(report.type) frame")
        }
        let received = Int(report.body.readBE(UInt64.self, at: 0))
        let receivedBytes = Int(report.body.readBE(UInt64.self, at: 8))
        m.delivery = Delivery(sentMessages: payload.count, receivedMessages: received,
                              sentBytes: payload.count * payload.size, receivedBytes: receivedBytes)
        if received != payload.count || receivedBytes != payload.count * payload.size {
            m.status = .partial
            m.error = "tcp server received \(received) of \(payload.count) messages (\(receivedBytes) bytes)"
        }
    }

    /// GOODBYE, then wait for the server to close: both sides end cleanly.
    private static func goodbye(_ s: Socket, _ reader: StreamFrameReader) throws {
        try send(s, StreamFraming.controlFrame(.goodbye, [any FixedWidthInteger]()))
        var ignored = StreamDataCount()
        reader.waitingFor = "the server to close after GOODBYE"
        if let extra = try reader.nextControl(counting: &ignored) {
            throw TransportError("tcp client: unexpected \(extra.type) frame after GOODBYE")
        }
    }
}
