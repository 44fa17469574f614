import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchWorkloads

/// The request-response workload's channel over QUIC (docs/protocol/quic.md section 4c):
/// each request on a bidirectional stream of its own, REQUEST(response size), one DATA
/// of the request's size, FIN; the server answers on the same stream with one DATA of
/// the response's size and FIN (`ClientWorkloadStreams` reads it).
struct QUICTransactionChannel: TransactionChannel {
    let client: QUICClient
    let connection: QUICConnection
    /// The request's frames before its body; the same for every request.
    private let head: [UInt8]
    private let requestBytes: Int

    init(client: QUICClient, connection: QUICConnection, _ transactions: Transactions) {
        self.client = client
        self.connection = connection
        requestBytes = transactions.requestBytes
        head = FrameEncoder.encode(.request(UInt64(transactions.responseBytes))) + FrameEncoder.header(.data, length: UInt32(requestBytes))
    }

    /// Timed from the request handed to QUIC: a stream the server's MAX_STREAMS does not
    /// allow yet is waited for in the event loop first.
    mutating func sendRequest(_ seq: Int) throws -> UInt64 {
        let id = try client.openStream(connection, for: "request-response")
        client.workloadStreams.expectResponse(on: id, request: seq)
        let s = connection.sender(id)
        s.append(copying: head)
        s.appendFiller(requestBytes)
        s.finish()
        return MonotonicClock.now()
    }

    /// The event loop until a response has ended (or `until`).
    mutating func nextResponse(until: UInt64?) throws -> TransactionResponse? {
        let streams = client.workloadStreams
        try client.pump(
            "request-response", wakeIn: { until.map { $0 > MonotonicClock.now() ? $0 - MonotonicClock.now() : 0 } }
        ) { streams.hasResponse || until.map { MonotonicClock.now() >= $0 } == true }
        return streams.takeResponse()
    }
}
