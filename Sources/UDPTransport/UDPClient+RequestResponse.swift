import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchWorkloads

#if canImport(Glibc)
    import Glibc
#endif

/// Request-response over udp (docs/protocol/udp.md, "Request-response"): UDP does not
/// retransmit, and neither does the workload: a transaction unanswered within
/// `transactionTimeout` is lost, and the next one goes out.
extension UDPClient {
    /// How long a transaction waits for its response before it is lost:
    /// max(`probeTimeoutMs`, 4 x the largest probe RTT), so 1 s by default and never
    /// less than a few round trips of the link the probes measured.
    var transactionTimeout: UInt64 { max(UInt64(options.probeTimeoutMs) * 1_000_000, 4 * maxRtt) }

    /// The transactions (`Transactions`) over `UDPTransactionChannel`, lost after
    /// `transactionTimeout`; `delivery` counts requests sent and responses received, so
    /// its loss ratio is the share of lost transactions.
    func transact(_ workload: WorkloadSpec) throws {
        let timeout = transactionTimeout
        guard var transactions = Transactions(workload, lostAfterNanos: timeout) else { return }
        var channel = UDPTransactionChannel(self, requestBytes: transactions.requestBytes, responseBytes: transactions.responseBytes)
        let lost = try transactions.run(over: &channel, transport: "udp", into: &m)
        var udp = commonExtra()
        udp["request_datagram_bytes"] = JSONValue(channel.requestDatagramBytes)
        udp["response_datagram_bytes"] = JSONValue(UDPDatagramHeader.size + transactions.responseBytes)
        udp["transaction_timeout_ms"] = JSONValue(Double(timeout) / 1e6)
        udp["transactions_lost"] = JSONValue(lost)
        m.extra["udp"] = .object(udp)
    }

    /// One datagram into the inbox, waiting until `until` at most (never past the
    /// cell's deadline, which throws); its length, or nil when the time is up.
    func receive(until: UInt64) throws -> Int? {
        while true {
            let remaining = cell.remainingNanos
            if remaining == 0 { throw TransportError("udp client: cell deadline passed during the workload") }
            let now = MonotonicClock.now()
            guard now < until else { return nil }
            if let n = try receiveOnce(waiting: min(until - now, remaining)) { return n }
        }
    }

    /// One datagram from the socket into the inbox, waiting `nanos` at most; its length,
    /// or nil when the wait ended empty. A shut socket (the cell cancelled) and an ICMP
    /// port unreachable are errors naming what happened.
    func receiveOnce(waiting nanos: UInt64) throws -> Int? {
        try UDPSocketSetup.receiveTimeout(socket, nanos: nanos)
        let n: Int?
        do {
            n = try inbox.buffer.withUnsafeMutableBytes { try socket.receive($0) }
        } catch let e as SystemError where e.errno == ECONNREFUSED {
            throw TransportError("udp client: the server at \(cell.server.address) is unreachable (ICMP port unreachable)")
        }
        if n == 0 { throw TransportError("udp client: socket shut down (cell cancelled)") }
        return n
    }
}
