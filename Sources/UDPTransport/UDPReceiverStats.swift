public import PeerBenchPlugin
public import PeerBenchSystem
import PeerBenchWorkloads

/// The receiver's accounting of the bulk phase: unique, duplicated and reordered
/// datagrams, payload bytes, and RFC 3550 interarrival jitter.
///
/// Definitions (docs/protocol/udp.md): a datagram is *duplicated* if its sequence
/// number was already received; *reordered* if it arrives after a datagram with a
/// higher sequence number (it is late; RFC 4737's definition); sequence numbers at or
/// above the announced count are ignored. Lost = sent - received, computed by the client.
public struct UDPReceiverStats: Sendable {
    /// Datagrams the sender announced (sequence numbers 0..<expected).
    public let expected: Int
    /// The unique datagrams, their payload bytes and series (bytes and datagrams per
    /// 100 ms from the first arrival, on the arrival clock, bounded to
    /// `maxSeriesIntervals` so the REPORT stays a few fragments at most), and the span on
    /// `MonotonicClock`.
    public private(set) var count = ReceivedMessages(
        series: BulkSeriesRecorder(maxIntervals: UDPReceiverStats.maxSeriesIntervals, countsDatagrams: true))
    public private(set) var duplicated = 0
    public private(set) var reordered = 0
    /// Datagrams whose sequence number was outside 0..<expected.
    public private(set) var outOfRange = 0
    public private(set) var jitter = RFC3550Jitter()
    /// 512 intervals x 16 bytes: at most 8 KiB in the REPORT (51 s at 100 ms, then coarser).
    public static let maxSeriesIntervals = 512
    private var highest: UInt64?
    private var seen: [UInt64]

    /// The most datagrams a receiver accounts for (a 128 MiB bitmap); the plugin's
    /// `check(payload:)` refuses larger counts, so no cell announces more.
    public static let maxExpected = 1 << 30

    /// `expected` is clamped to 0...`maxExpected`: the count comes off the network.
    public init(expected: Int) {
        self.expected = max(0, min(expected, Self.maxExpected))
        seen = [UInt64](repeating: 0, count: (self.expected + 63) / 64)
    }

    /// Unique datagrams received, and their payload bytes.
    public var received: Int { count.messages }
    public var receivedBytes: Int { count.bytes }
    /// From the first received datagram's arrival to the latest's, nanoseconds: the
    /// span of the field study's data rate; 0 below two datagrams.
    public var spanNanos: UInt64 { count.spanNanos }

    /// Accounts one arrival. `sentNanos` is the sender's timestamp and `arrivedNanos`
    /// the receiver's clock (any clock: only differences are used); `monotonicArrival`
    /// the same moment on `MonotonicClock` for the span (default `arrivedNanos`).
    public mutating func record(
        sequence: UInt64, payloadBytes: Int, sentNanos: UInt64, arrivedNanos: UInt64,
        monotonicArrival: UInt64? = nil
    ) {
        guard sequence < UInt64(expected) else {
            outOfRange += 1
            return
        }
        let word = Int(sequence >> 6)
        let bit = UInt64(1) << (sequence & 63)
        if seen[word] & bit != 0 {
            duplicated += 1
            return
        }
        seen[word] |= bit
        count.bytesArrived(payloadBytes, at: arrivedNanos)
        count.messageArrived(at: monotonicArrival ?? arrivedNanos)
        if let h = highest, sequence < h { reordered += 1 } else { highest = sequence }
        jitter.add(sentNanos: sentNanos, arrivedNanos: arrivedNanos)
    }

    /// One past the highest sequence number received (0 before any): where a client
    /// resuming after a lost peer carries on (`reconnect`, docs/protocol/udp.md).
    public var nextSequence: UInt64 { highest.map { $0 + 1 } ?? 0 }

    /// Whether every announced datagram has arrived.
    public var complete: Bool { received >= expected }
}
