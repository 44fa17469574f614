import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchWorkloads

/// The client's half of the workloads beyond the upload (docs/WORKLOADS.md,
/// docs/protocol/tcp.md "Workloads"), after the probes, on the same connection.
extension StreamWorkloadClient {
    /// Runs `workload` (anything but the upload, which is `bulk(_:...)`) into `m`.
    public func run(_ workload: WorkloadSpec, payload: Payload?, into m: inout TransportMeasurement) throws {
        switch workload.kind {
        case .bulk(.up):
            if let payload { try bulk(payload, into: &m) }
        case .bulk(.down):
            if let payload { try pull(payload, into: &m) }
        case .bulk(.bidir):
            if let payload { try bulk(payload, alsoDown: true, into: &m) }
        case .requestResponse:
            try transact(workload, into: &m)
        case .isochronous:
            try isochronous(workload, into: &m)
        }
    }

    /// PULL, then the server's DATA until PUSHED: the download, timed from the PULL
    /// written to the last message read.
    func pull(_ payload: Payload, into m: inout TransportMeasurement) throws {
        let start = MonotonicClock.now()
        try send(StreamFraming.controlFrame(.pull, [UInt64(payload.count), UInt64(payload.size)]), during: "sending PULL")
        var count = ReceivedMessages()
        reader.waitingFor = "the server's DATA after PULL"
        guard let frame = try reader.nextControl(counting: &count) else {
            throw TransportError("\(transport) client: the server closed the connection during the download")
        }
        guard frame.type == .pushed else {
            throw TransportError("\(transport) client: expected PUSHED after the download, got a \(frame.type) frame")
        }
        let down = try downFlow(count: count, pushed: Array(frame.body), at: reader.filledAt, start: start)
        m.recordDirections(up: nil, down: down, receiverSpanNanos: count.spanNanos, expected: payload, transport: transport)
    }

    /// The down direction as this side counted it: PUSHED {messages u64, bytes u64} says
    /// what the server sent; the time runs to the last message read (PUSHED's arrival
    /// without any).
    func downFlow(count: ReceivedMessages, pushed body: [UInt8], at pushedAt: UInt64, start: UInt64) throws -> DirectionalDelivery.Flow {
        guard body.count == 16 else { throw TransportError("\(transport) client: malformed PUSHED (\(body.count) bytes)") }
        let sent = body.withUnsafeBytes { (Int($0.readBE(UInt64.self, at: 0)), Int($0.readBE(UInt64.self, at: 8))) }
        return count.flow(sent: sent, since: start, endedAt: pushedAt)
    }

    /// `requests` transactions (`Transactions`): the request's DATA then REQUEST {seq,
    /// response bytes}, answered by DATA then RESPONSE {seq}, in order (a stream answers
    /// in order). Each is timed from its request's write to the read that completed its
    /// response.
    func transact(_ workload: WorkloadSpec, into m: inout TransportMeasurement) throws {
        guard var transactions = Transactions(workload) else { return }
        var channel = StreamTransactionChannel(self, transactions)
        try transactions.run(over: &channel, transport: transport, into: &m)
    }

    func send(_ bytes: [UInt8], during phase: String) throws {
        try bytes.withUnsafeBytes { try send($0, during: phase) }
    }

    /// Isochronous frames (`Isochronous`) over `StreamFrameChannel`: up, the client's
    /// frames and the server's FRAME_REPORT; down, the server's frames on FRAME_PULL; bidir, both at once.
    func isochronous(_ workload: WorkloadSpec, into m: inout TransportMeasurement) throws {
        guard let isochronous = Isochronous(workload) else { return }
        var channel = StreamFrameChannel(self, up: isochronous.direction != .down, down: isochronous.direction != .up)
        do { try isochronous.run(over: &channel, transport: transport, into: &m) } catch {
            channel.abandon()
            throw error
        }
    }
}
