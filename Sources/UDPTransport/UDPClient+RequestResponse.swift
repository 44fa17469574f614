import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Request-response over udp (docs/protocol/udp.md, "Request-response"): each request
/// one REQUEST datagram, answered by one RESPONSE datagram; at most `concurrency`
/// outstanding. UDP does not retransmit, and neither does the workload: a transaction
/// unanswered within `transactionTimeout` is lost, and the next one goes out.
extension UDPClient {
    /// How long a transaction waits for its response before it is lost:
    /// max(`probeTimeoutMs`, 4 x the largest probe RTT), so 1 s by default and never
    /// less than a few round trips of the link the probes measured.
    var transactionTimeout: UInt64 { max(UInt64(options.probeTimeoutMs) * 1_000_000, 4 * maxRtt) }

    /// `n` transactions: REQUEST `seq` = i {response bytes u64, then `a` bytes}, answered
    /// by RESPONSE `seq` = i with `b` bytes. Each answered one is timed from its REQUEST
    /// handed to the kernel to its RESPONSE read; `transactionNanos` holds those in request
    /// order, `delivery` counts requests sent and responses received, so its loss ratio is
    /// the share of lost transactions. A late RESPONSE of a lost transaction is ignored.
    func transact(requests n: Int, requestBytes a: Int, responseBytes b: Int, concurrency c: Int) throws {
        let timeout = transactionTimeout
        var request = header(.request, 0, 0).datagram([UInt64(b)]) + [UInt8](repeating: 0, count: a)
        for j in (UDPDatagramHeader.size + 8)..<request.count { request[j] = UInt8(truncatingIfNeeded: j) }
        var sentAt = [UInt64](repeating: 0, count: n)
        /// Per transaction: its time once answered; nil while outstanding or lost.
        var times = [UInt64?](repeating: nil, count: n)
        var lost = [Bool](repeating: false, count: n)
        var oldest = 0  // transactions below are answered or lost
        var next = 0
        var received = 0, receivedBytes = 0
        func sendNext() throws {
            let now = MonotonicClock.now()
            request.withUnsafeMutableBytes { UDPDatagramHeader.writeSequence(UInt64(next), timestamp: now, to: $0.baseAddress!) }
            sentAt[next] = now
            try send(request)
            next += 1
        }
        let start = MonotonicClock.now()
        while next < min(c, n) { try sendNext() }
        while oldest < n {
            if times[oldest] != nil || lost[oldest] {
                oldest += 1
                continue
            }
            let due = sentAt[oldest] + timeout
            guard let length = try receive(until: due) else {
                lost[oldest] = true  // its time is up: the next transaction takes its place
                if next < n { try sendNext() }
                continue
            }
            let at = MonotonicClock.now()
            let seq: Int? = inbox.buffer.withUnsafeBytes { p in
                guard let h = UDPDatagramHeader(UnsafeRawBufferPointer(rebasing: p[0..<length])), h.session == session,
                    h.type == .response, h.sequence < UInt64(next)
                else { return nil }
                return Int(h.sequence)
            }
            guard let seq, times[seq] == nil, !lost[seq] else { continue }  // another datagram, a duplicate or a late answer
            times[seq] = at - sentAt[seq]
            received += 1
            receivedBytes += length - UDPDatagramHeader.size
            if next < n { try sendNext() }
        }
        m.bulkNanos = MonotonicClock.elapsed(since: start)
        m.transactionNanos = times.compactMap { $0 }
        m.delivery = Delivery(sentMessages: n, receivedMessages: received, sentBytes: n * a, receivedBytes: receivedBytes)
        let lostCount = n - received
        if lostCount > 0 {
            m.status = .partial
            m.error = "udp: \(lostCount) of \(n) transactions got no response within \(timeout / 1_000_000) ms (lost)"
        }
        var udp = commonExtra()
        udp["request_datagram_bytes"] = JSONValue(request.count + (tag == nil ? 0 : UDPDatagramTag.size))
        udp["response_datagram_bytes"] = JSONValue(UDPDatagramHeader.size + b)
        udp["transaction_timeout_ms"] = JSONValue(Double(timeout) / 1e6)
        udp["transactions_lost"] = JSONValue(lostCount)
        m.extra["udp"] = .object(udp)
    }

    /// One datagram into `rx`, waiting until `until` at most (never past the cell's
    /// deadline, which throws); its length, or nil when the time is up.
    func receive(until: UInt64) throws -> Int? {
        while true {
            let remaining = cell.remainingNanos
            if remaining == 0 { throw TransportError("udp client: cell deadline passed during the workload") }
            let now = MonotonicClock.now()
            guard now < until else { return nil }
            try UDPSocketSetup.receiveTimeout(socket, nanos: min(until - now, remaining))
            let n: Int?
            do {
                n = try inbox.buffer.withUnsafeMutableBytes { try socket.receive($0) }
            } catch let e as SystemError where e.errno == ECONNREFUSED {
                throw TransportError("udp client: the server at \(cell.server.address) is unreachable (ICMP port unreachable)")
            }
            guard let n else { continue }
            if n == 0 { throw TransportError("udp client: socket shut down (cell cancelled)") }
            return n
        }
    }
}
