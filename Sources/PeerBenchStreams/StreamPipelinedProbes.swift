import Foundation
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchWorkloads
import Synchronization

/// The reading half of pipelined probes (`StreamWorkloadClient.probePipelined`): while
/// the client's thread writes PROBE frames back to back, this thread reads the
/// server's ECHOs and times each on arrival. A stream delivers in order, so the echo of
/// probe i is the i-th frame; anything else is a protocol error. An echo carries its
/// probe's body: {seq u32, client time u64}, or the client time alone (`stampOnly`, the
/// send loop), whose order is then checked by the times, which never go back.
///
/// Hand-off: the writer calls `finish()` after its last probe and gets the RTTs once
/// every echo is in; a reading error (the cell deadline shuts the socket) ends the
/// wait with that error. A writer that fails does not wait: the connection's scope
/// closes the socket, which ends this thread with an error nobody reads.
final class PipelinedEchoCollector: Sendable {
    private let connection: HelperConnection
    private let who: String
    private let expected: Int
    private let stampOnly: Bool
    private let ended = DispatchSemaphore(value: 0)
    /// Set by the reading thread before `ended` is signalled, read after it.
    private let outcome = Mutex<Result<Answers, any Error>?>(nil)

    /// The RTTs (send order) and when the first and last echo arrived.
    typealias Answers = (rtts: [UInt64], firstAt: UInt64?, lastAt: UInt64?)

    /// `client`'s reader is this thread's until it ends; the client's thread writes meanwhile.
    init(_ client: StreamWorkloadClient, who: String, expected: Int, stampOnly: Bool = false) {
        connection = HelperConnection(client: client)
        self.who = who
        self.expected = expected
        self.stampOnly = stampOnly
    }

    func start() {
        CPUAccount.startThread("\(who) pipelined echoes") { [self] in run() }
    }

    /// Waits for every echo; returns the RTTs (send order) and when the first and last
    /// echo arrived, or throws the reader's error.
    func finish() throws -> Answers {
        ended.wait()
        return try outcome.withLock { $0! }.get()
    }

    private func run() {
        let reader = connection.client.reader
        var rtts: [UInt64] = []
        rtts.reserveCapacity(expected)
        var firstAt: UInt64?
        var lastAt: UInt64?
        var previousSentAt: UInt64 = 0
        // The app takes each echo one receive cost after the one before.
        reader.appLoop = AppReceiveLoop(connection.client.appLoop)
        defer { reader.appLoop = nil }
        do {
            var ignored = ReceivedMessages()  // the client receives no DATA
            reader.waitingFor = "the echoes of the pipelined probes"
            while rtts.count < expected {
                guard let frame = try reader.nextControl(counting: &ignored) else {
                    throw TransportError("\(who): the server closed the connection during the pipelined RTT probes")
                }
                let now = reader.appLoop == nil ? MonotonicClock.now() : reader.takenAt
                guard frame.type == .echo, frame.body.count == (stampOnly ? 8 : 12),
                    stampOnly || frame.body.readBE(UInt32.self, at: 0) == UInt32(truncatingIfNeeded: rtts.count)
                else {
                    throw TransportError("\(who): expected the echo of probe \(rtts.count), got a \(frame.type) frame")
                }
                let sentAt = frame.body.readBE(UInt64.self, at: stampOnly ? 0 : 4)
                if stampOnly, sentAt < previousSentAt || sentAt > now {
                    throw TransportError("\(who): the echo of probe \(rtts.count) carries a send time out of order")
                }
                previousSentAt = sentAt
                rtts.append(now > sentAt ? now - sentAt : 0)
                if firstAt == nil { firstAt = now }
                lastAt = now
            }
            outcome.withLock { $0 = .success((rtts, firstAt, lastAt)) }
        } catch {
            outcome.withLock { $0 = .failure(error) }
        }
        ended.signal()
    }
}
