/// How a cell's idle RTT probes are sent (the matrix's top-level `rttMethod`; the
/// record's `rtt_method`). Both send `rttProbes` timestamped probes that the server
/// echoes, and both put one round trip per answered probe into
/// `TransportMeasurement.rttNanos`; they differ in what a probe waits for.
public enum RTTMethod: String, Sendable, Codable, CaseIterable {
    /// One probe at a time: the next leaves when the previous one's echo is in (or, on
    /// a lossy transport, its timeout passed). Each RTT is that of an otherwise idle
    /// connection. The default, and what every matrix without `rttMethod` measures.
    case pingPong = "ping-pong"
    /// The field study's method: every probe is sent back to back without waiting for
    /// echoes, while a reader times each echo as it arrives. Later probes queue behind
    /// earlier ones (and, with Nagle, coalesce with them), so the RTTs include that
    /// queueing. A plugin that cannot pipeline runs ping-pong and reports so.
    case pipelined
    /// The field study app's own send loop (docs/FIELD-STUDY.md): every probe, and every
    /// message of a transfer, handed to the stack with its own send call in a plain loop,
    /// as fast as the socket accepts them, with no timer between them. Probes run as
    /// `pipelined` with no interval; the record says `send-loop` so a reader knows the
    /// interval was none by design. Stream transports write a transfer one message per
    /// send (otherwise many per send), so Nagle decides how the messages coalesce.
    case sendLoop = "send-loop"

    /// The method as the matrix and the record spell it.
    public var name: String { rawValue }
}
