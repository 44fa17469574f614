public import PeerBenchPlugin

/// What a bulk receiver counted of the messages that came to it (docs/RECORDS.md), the
/// same on every transport: whole messages, their body bytes, the bulk series, and when
/// the first and the latest whole message arrived, which is the receiver's span (the
/// field study's data rate). The stream receivers, udp's and quic's all count with it.
public struct ReceivedMessages: Sendable, Equatable {
    public var messages = 0
    /// Body bytes as they arrived: a message cut short (a lost connection) counts its
    /// bytes so far, until the receiver takes them off.
    public var bytes = 0
    /// When set, body bytes are also counted per interval of their arrival.
    public var series: BulkSeriesRecorder?
    /// When the first and the latest whole message arrived (the receiver's clock); nil before the first.
    public var firstMessageAt: UInt64?
    public var lastMessageAt: UInt64?

    public init(messages: Int = 0, bytes: Int = 0, series: BulkSeriesRecorder? = nil) {
        self.messages = messages
        self.bytes = bytes
        self.series = series
    }

    /// `n` body bytes arrived at `at` (on the series' clock).
    @inlinable
    public mutating func bytesArrived(_ n: Int, at: UInt64) {
        bytes += n
        if n > 0 { series?.record(bytes: n, at: at) }
    }

    /// A whole message arrived at `at`. An arrival stamped before the latest (a
    /// datagram's kernel stamp) does not move the span's end back.
    @inlinable
    public mutating func messageArrived(at: UInt64) {
        messages += 1
        if firstMessageAt == nil { firstMessageAt = at }
        lastMessageAt = max(lastMessageAt ?? at, at)
    }

    /// From the arrival of the first whole message to that of the latest, nanoseconds:
    /// the span of the field study's data rate; 0 below two messages.
    public var spanNanos: UInt64 {
        guard let first = firstMessageAt, let last = lastMessageAt, last > first else { return 0 }
        return last - first
    }

    /// This count as one direction of a bulk (`TransportMeasurement.recordDirections`):
    /// `sent` as its sender says, timed from `start` (the request for the data) to the
    /// latest whole message, or to `endedAt` (the sender's end) when none came.
    public func flow(sent: (messages: Int, bytes: Int), since start: UInt64, endedAt: UInt64, reordered: Int = 0, duplicated: Int = 0)
        -> DirectionalDelivery.Flow
    {
        let end = lastMessageAt ?? endedAt
        return DirectionalDelivery.Flow(
            delivery: Delivery(
                sentMessages: sent.messages, receivedMessages: messages, sentBytes: sent.bytes, receivedBytes: bytes,
                reordered: reordered, duplicated: duplicated),
            nanos: end > start ? end - start : 0)
    }
}
