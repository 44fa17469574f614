import PeerBenchPlugin
import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The one event loop turn both sides run (`QUICClient.pump`, `QUICServerLoop.run`):
/// sleep until a datagram, a timer or a wake-up, retry a stalled send, then read a
/// bounded batch of datagrams, split back into QUIC datagrams, and hand each on.
/// The caller services its connections (`QUICConnection.service`) between turns.
struct QUICEventLoop {
    /// Datagrams read per turn before the caller handles timers and writes. Small,
    /// so ACKs leave soon: ngtcp2 0.12's CUBIC caps the window near 2.89 x rate x
    /// min RTT and paces at cwnd / smoothed RTT, so every microsecond a received
    /// packet waits for its ACK costs goodput (16 gave 400-515 MB/s on loopback,
    /// 64 gave 140-300 MB/s, 8 gave 425-460 MB/s).
    static let readBatch = 16
    /// How long to sleep at most while a send is stalled (the socket's POLLOUT also wakes us).
    static let stalledRetryNanos: UInt64 = 1_000_000

    let channel: UDPChannel
    /// A second socket read beside `channel`: a client's new socket while the migration
    /// to it is validated (`QUICClient+Migration`); nil otherwise.
    var probe: UDPChannel? = nil

    /// What a turn ended with.
    enum Turn {
        /// Slept until readable or the timeout, and read what there was.
        case ran
        /// `UDPChannel.wake` was called (stop, cell cancellation).
        case woken
    }

    /// One turn: waits at most `timeoutNanos`, then reads up to `readBatch` QUIC
    /// datagrams and calls `deliver(datagram, from, fromLength, now)` for each (`from`
    /// is nil unless `withSender`). `deliver` returns false to end the batch early.
    /// With `probe` (a client's migration probe socket) its datagrams go to `deliverProbe`.
    func turn(
        timeoutNanos: UInt64, withSender: Bool,
        deliverProbe: (UnsafeRawBufferPointer, UInt64) -> Void = { _, _ in },
        deliver: (UnsafeRawBufferPointer, UnsafeRawPointer?, socklen_t, UInt64) -> Bool
    ) throws -> Turn {
        let timeout = channel.isStalled || probe?.isStalled == true ? min(timeoutNanos, Self.stalledRetryNanos) : timeoutNanos
        let (readable, woken, probeReadable) = try channel.wait(timeoutNanos: timeout, also: probe)
        if woken { return .woken }
        channel.flushStalled()
        if let probe {
            probe.flushStalled()
            if probeReadable {
                try Self.readBatch(from: probe, withSender: false) { datagram, _, _, now in
                    deliverProbe(datagram, now)
                    return true
                }
            }
        }
        if readable { try Self.readBatch(from: channel, withSender: withSender, deliver: deliver) }
        return .ran
    }

    /// Reads up to `readBatch` datagrams from `channel` (what `turn` does with each socket).
    private static func readBatch(
        from channel: UDPChannel, withSender: Bool,
        deliver: (UnsafeRawBufferPointer, UnsafeRawPointer?, socklen_t, UInt64) -> Bool
    ) throws {
        guard let buffer = channel.receiveBuffer.baseAddress else { return }
        var from = sockaddr_storage()
        var fromLength = socklen_t(0)
        var datagrams = 0
        while datagrams < Self.readBatch {
            let received =
                withSender
                ? try channel.receive(from: &from, fromLength: &fromLength)
                : try channel.receive(from: nil, fromLength: nil)
            // Nothing waiting; or a zero-length read, which on a shut-down socket
            // (cell cancellation) would otherwise repeat forever.
            guard let (n, segment) = received, n > 0 else { break }
            datagrams += segment > 0 ? (n + segment - 1) / segment : 1
            let now = MonotonicClock.now()
            // Coalesced datagrams (UDP_GRO) are split back into QUIC datagrams.
            let step = segment > 0 ? segment : n
            var offset = 0
            var more = true
            while offset < n, more {
                let len = min(step, n - offset)
                let datagram = UnsafeRawBufferPointer(start: buffer + offset, count: len)
                more = withUnsafePointer(to: &from) { p in
                    deliver(datagram, withSender ? UnsafeRawPointer(p) : nil, fromLength, now)
                }
                offset += len
            }
            if !more { break }
        }
    }
}
