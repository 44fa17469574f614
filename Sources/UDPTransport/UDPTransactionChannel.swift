import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchWorkloads

/// The request-response workload's channel over udp (docs/protocol/udp.md,
/// "Request-response"): REQUEST `seq` = i {response bytes u64, then the request's
/// bytes}, answered by RESPONSE `seq` = i carrying the response's bytes. A datagram of
/// another kind, session or transaction is passed over.
struct UDPTransactionChannel: TransactionChannel {
    private let client: UDPClient
    /// The REQUEST datagram, its sequence and timestamp rewritten for each request.
    private var request: [UInt8]

    init(_ client: UDPClient, requestBytes: Int, responseBytes: Int) {
        self.client = client
        request = client.header(.request, 0, 0).datagram([UInt64(responseBytes)]) + [UInt8](repeating: 0, count: requestBytes)
        for j in (UDPDatagramHeader.size + 8)..<request.count { request[j] = UInt8(truncatingIfNeeded: j) }
    }

    /// A REQUEST as it goes on the wire (with the tag of an authenticated cell).
    var requestDatagramBytes: Int { request.count + (client.tag == nil ? 0 : UDPDatagramTag.size) }

    mutating func sendRequest(_ seq: Int) throws -> UInt64 {
        let now = MonotonicClock.now()
        request.withUnsafeMutableBytes { UDPDatagramHeader.writeSequence(UInt64(seq), timestamp: now, to: $0.baseAddress!) }
        try client.send(request)
        return now
    }

    mutating func nextResponse(until: UInt64?) throws -> TransactionResponse? {
        while true {
            guard let length = try client.receive(until: until ?? .max) else { return nil }
            let at = MonotonicClock.now()
            let seq: UInt64? = client.inbox.buffer.withUnsafeBytes { p in
                guard let h = UDPDatagramHeader(UnsafeRawBufferPointer(rebasing: p[0..<length])), h.session == client.session, h.type == .response
                else { return nil }
                return h.sequence
            }
            guard let seq, seq < UInt64(Int.max) else { continue }
            return (seq: Int(seq), bytes: length - UDPDatagramHeader.size, at: at)
        }
    }
}
