import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchWorkloads

/// The request-response workload's channel over a byte stream (docs/protocol/tcp.md,
/// "Workloads"): a request is its DATA then REQUEST {seq u32, response bytes u32} in one
/// write; the server answers with DATA then RESPONSE {seq u32}, in request order.
struct StreamTransactionChannel: TransactionChannel {
    private let client: StreamWorkloadClient
    /// The request's frames, rewritten in place with each sequence number.
    private var request: [UInt8]
    private let seqAt: Int
    private let requests: Int
    private var responses = ReceivedMessages()
    /// The response the stream must deliver next.
    private var expected = 0

    init(_ client: StreamWorkloadClient, _ transactions: Transactions) {
        self.client = client
        requests = transactions.requests
        let (requestBytes, responseBytes) = (transactions.requestBytes, transactions.responseBytes)
        request = StreamWorkloadFrames.dataFrame(size: requestBytes) + StreamFraming.controlFrame(.request, [UInt32(0), UInt32(responseBytes)])
        seqAt = request.count - 8
    }

    mutating func sendRequest(_ seq: Int) throws -> UInt64 {
        request.withUnsafeMutableBytes { $0.storeBytes(of: UInt32(seq).bigEndian, toByteOffset: seqAt, as: UInt32.self) }
        let at = MonotonicClock.now()
        try client.send(request, during: "sending request \(seq)")
        return at
    }

    /// A stream needs no time limit: every response comes, in order, or the connection fails.
    mutating func nextResponse(until: UInt64?) throws -> TransactionResponse? {
        let reader = client.reader
        reader.waitingFor = "the response to request \(expected)"
        let before = responses.bytes
        guard let frame = try reader.nextControl(counting: &responses) else {
            throw TransportError("\(client.transport) client: the server closed the connection after \(expected) of \(requests) responses")
        }
        guard frame.type == .response, frame.body.count == 4, Int(frame.body.readBE(UInt32.self, at: 0)) == expected else {
            throw TransportError("\(client.transport) client: expected the RESPONSE to request \(expected), got a \(frame.type) frame")
        }
        expected += 1
        return (seq: expected - 1, bytes: responses.bytes - before, at: reader.filledAt)
    }
}
