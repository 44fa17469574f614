public import PeerBenchPlugin
import PeerBenchSystem

/// How a transport carries the request-response workload (docs/WORKLOADS.md): it hands
/// a request over and gives back the responses as they come. Everything else is the
/// workload's, written once in `Transactions`: how many are outstanding, what is timed,
/// when an unanswered one counts as lost, and what reaches the record.
public protocol TransactionChannel {
    /// Hands request `seq` (its `requestBytes`, asking for `responseBytes`) to the
    /// transport; returns the `MonotonicClock` time its transaction starts at, as the
    /// transport stamps a send (before the write on a socket; once queued for QUIC).
    mutating func sendRequest(_ seq: Int) throws -> UInt64
    /// The next response that arrived, waiting until `until` (`MonotonicClock`) at most,
    /// or as long as it takes when nil; nil when that time came first. A response to a
    /// request not sent, already answered or given up is passed on all the same: the
    /// workload skips it.
    mutating func nextResponse(until: UInt64?) throws -> TransactionResponse?
}

/// One response as its channel read it: the request it answers, its body bytes, and
/// when it was whole on the client (`MonotonicClock`), the end of its transaction.
public typealias TransactionResponse = (seq: Int, bytes: Int, at: UInt64)

/// The request-response workload: `requests` transactions, at most `concurrency`
/// outstanding, each timed from its request handed over to its response whole.
/// On a transport that does not retransmit (`lostAfterNanos`), a transaction still
/// unanswered that long after its request is lost and the next request takes its place;
/// a late answer to it is ignored.
public struct Transactions {
    public let requests: Int
    public let requestBytes: Int
    public let responseBytes: Int
    public let concurrency: Int
    /// nil: every transaction is answered (the transport retransmits).
    public let lostAfterNanos: UInt64?
    /// The most transactions outstanding at once (the concurrency really used).
    public private(set) var peakOutstanding = 0
    /// Requests handed to the channel so far.
    public private(set) var sent = 0

    /// nil when `workload` is not request-response.
    public init?(_ workload: WorkloadSpec, lostAfterNanos: UInt64? = nil) {
        guard case .requestResponse(let n, let a, let b, let c) = workload.kind else { return nil }
        requests = n
        requestBytes = a
        responseBytes = b
        concurrency = c
        self.lostAfterNanos = lostAfterNanos
    }

    /// Runs every transaction over `channel` and puts the workload's figures into `m`:
    /// `transactionNanos` (the answered ones, in request order), `bulkNanos` (the whole
    /// exchange), `delivery` (requests sent, responses received), and `partial` with
    /// an error naming `transport` when some were lost. Returns how many were lost.
    @discardableResult
    public mutating func run(over channel: inout some TransactionChannel, transport: String, into m: inout TransportMeasurement) throws -> Int {
        let n = requests
        var sentAt = [UInt64](repeating: 0, count: n)
        // Per transaction: its time once answered; nil while outstanding or lost.
        var times = [UInt64?](repeating: nil, count: n)
        var lost = [Bool](repeating: false, count: n)
        var settled = 0, received = 0, receivedBytes = 0
        var oldest = 0  // transactions below are answered or lost
        func fill() throws {
            while sent < n, sent - settled < concurrency {
                sentAt[sent] = try channel.sendRequest(sent)
                sent += 1
                peakOutstanding = max(peakOutstanding, sent - settled)
            }
        }
        let start = MonotonicClock.now()
        try fill()
        while oldest < n {
            if times[oldest] != nil || lost[oldest] {
                oldest += 1
                continue
            }
            guard let r = try channel.nextResponse(until: lostAfterNanos.map { sentAt[oldest] &+ $0 }) else {
                lost[oldest] = true  // its time is up
                settled += 1
                try fill()
                continue
            }
            guard r.seq >= 0, r.seq < sent, times[r.seq] == nil, !lost[r.seq] else { continue }  // a duplicate or a late answer
            times[r.seq] = r.at > sentAt[r.seq] ? r.at - sentAt[r.seq] : 0
            received += 1
            receivedBytes += r.bytes
            settled += 1
            try fill()
        }
        m.bulkNanos = MonotonicClock.elapsed(since: start)
        m.transactionNanos = times.compactMap { $0 }
        m.delivery = Delivery(sentMessages: n, receivedMessages: received, sentBytes: n * requestBytes, receivedBytes: receivedBytes)
        let lostCount = n - received
        if lostCount > 0, let lostAfterNanos {
            m.status = .partial
            m.error = "\(transport): \(lostCount) of \(n) transactions got no response within \(lostAfterNanos / 1_000_000) ms (lost)"
        }
        return lostCount
    }
}
