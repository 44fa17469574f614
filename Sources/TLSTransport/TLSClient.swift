#if canImport(Glibc)
import Glibc
#endif
import PeerBenchCore

/// The client side: the standard workload over one TLS 1.3 connection.
enum TLSClient {
    /// Plaintext bytes per send call in the bulk phase (GnuTLS cuts them into 16 KiB records).
    static let batchBytes = 256 << 10

    static func run(_ cell: CellContext, server: SocketAddress, options: TLSOptions) throws -> TransportMeasurement {
        var m = TransportMeasurement()
        let files = try options.psk == nil ? TLSFiles(options) : TLSFiles(ca: "", cert: "", key: "")
        let credentials = try TLSCredentials(clientWith: options, files: files)
        let s = try Socket(family: server.family, type: Int32(SOCK_STREAM.rawValue))
        cell.track(s)
        defer { cell.untrack(s) }
        do {
            try s.prepareForTLS(noDelay: options.noDelay, cell: cell)
            let t0 = MonotonicClock.now()
            try s.connect(server)
            let tcpConnect = MonotonicClock.elapsed(since: t0)
            let tls = try TLSSession(client: s, credentials: credentials, options: options,
                                     verifyName: options.serverName ?? server.host, caFile: files.ca)
            let t1 = MonotonicClock.now()
            try tls.handshake()
            let handshake = MonotonicClock.elapsed(since: t1)
            // The timed set-up is what an application waits for before its first byte:
            // TCP's three-way handshake plus TLS 1.3's one round trip.
            m.connectNanos = MonotonicClock.elapsed(since: t0)
            var info = tls.description()
            info["tcp_connect_ms"] = .number(tcpConnect.milliseconds)
            info["handshake_ms"] = .number(handshake.milliseconds)
            m.extra["tls"] = .object(info)

            let reader = StreamFrameReader(tls)
            var ignored = StreamDataCount()  // the client receives no DATA
            try probe(tls, reader, count: cell.rttProbes, into: &m)
            if let payload = cell.payload, payload.count > 0 {
                try bulk(tls, reader, payload: payload, into: &m)
            }
            try tls.sendAll(StreamFraming.controlFrame(.goodbye, [any FixedWidthInteger]()))
            if let extra = try reader.nextControl(counting: &ignored) { throw TransportError("tls client: unexpected \(extra.type) frame after GOODBYE") }
        } catch {
            if cell.cancellation.isCancelled { throw TransportError("tls client cancelled at the cell deadline (\(error))") }
            throw error
        }
        return m
    }

    /// PROBE {seq u32, client time u64}, answered by ECHO with the same body.
    private static func probe(_ tls: TLSSession, _ reader: StreamFrameReader, count: Int, into m: inout TransportMeasurement) throws {
        m.rttNanos.reserveCapacity(count)
        m.probesSent = 0
        var ignored = StreamDataCount()
        var frame = [UInt8](repeating: 0, count: StreamFraming.headerSize + 12)
        for seq in 0..<count {
            let t = MonotonicClock.now()
            frame.withUnsafeMutableBytes { p in
                StreamFraming.writeHeader(.probe, bodyLength: 12, to: p.baseAddress!)
                p.storeBytes(of: UInt32(truncatingIfNeeded: seq).bigEndian, toByteOffset: 5, as: UInt32.self)
                p.storeBytes(of: t.bigEndian, toByteOffset: 9, as: UInt64.self)
            }
            try frame.withUnsafeBytes { try tls.sendAll($0) }
            m.probesSent = seq + 1
            guard let echo = try reader.nextControl(counting: &ignored) else { throw TransportError("tls client: the server closed the stream during the RTT probes") }
            guard echo.type == .echo, echo.body.count == 12, echo.body.readBE(UInt32.self, at: 0) == UInt32(truncatingIfNeeded: seq) else {
                throw TransportError("tls client: expected the echo of probe \(seq), got a \(echo.type) frame")
            }
            m.rttNanos.append(MonotonicClock.elapsed(since: t))
        }
    }

    /// DATA frames, then END {messages, bytes}; timed until the server's REPORT so it
    /// measures delivery, not filling buffers.
    private static func bulk(_ tls: TLSSession, _ reader: StreamFrameReader, payload: Payload, into m: inout TransportMeasurement) throws {
        let frameSize = StreamFraming.headerSize + payload.size
        var ignored = StreamDataCount()
        let perBatch = max(1, min(payload.count, batchBytes / frameSize))
        let batch = UnsafeMutableRawBufferPointer.allocate(byteCount: perBatch * frameSize, alignment: 16)
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
            try tls.sendAll(UnsafeRawBufferPointer(rebasing: batch[0..<(n * frameSize)]))
            left -= n
        }
        try tls.sendAll(StreamFraming.controlFrame(.end, [UInt64(payload.count), UInt64(payload.count * payload.size)]))
        guard let report = try reader.nextControl(counting: &ignored) else { throw TransportError("tls client: the server closed the stream before its REPORT") }
        m.bulkNanos = MonotonicClock.elapsed(since: start)
        guard report.type == .report, report.body.count == 16 else { throw TransportError("tls client: expected REPORT, got a \(report.type) frame") }
        let received = Int(report.body.readBE(UInt64.self, at: 0))
        let receivedBytes = Int(report.body.readBE(UInt64.self, at: 8))
        m.delivery = Delivery(sentMessages: payload.count, receivedMessages: received,
                              sentBytes: payload.count * payload.size, receivedBytes: receivedBytes)
        if received != payload.count || receivedBytes != payload.count * payload.size {
            m.status = .partial
            m.error = "tls server received \(received) of \(payload.count) messages (\(receivedBytes) bytes)"
        }
    }
}

extension TLSSession: ByteStream {
    func sendAll(_ bytes: [UInt8]) throws { try bytes.withUnsafeBytes { try sendAll($0) } }
    /// Timeouts surface from `receive` as errors naming the role, so never nil here.
    public func readSome(_ buffer: UnsafeMutableRawBufferPointer) throws -> Int? { try receive(buffer) }
}
