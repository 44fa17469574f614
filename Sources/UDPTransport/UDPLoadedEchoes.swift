import PeerBenchPlugin
import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Picks up loaded-probe echoes while the client is busy sending DATA: between
/// batches it takes what is queued without waiting. The client may look late, so the
/// arrival time is the kernel's receive stamp (SO_TIMESTAMPNS, CLOCK_REALTIME), moved
/// to the monotonic clock by its age: an echo's RTT does not include our polling delay.
final class LoadedEchoPoller {
    private let socket: Socket
    private let rx = UDPBatchReceiver(capacity: 8)

    init(_ socket: Socket) throws {
        self.socket = socket
        try socket.setOption(SOL_SOCKET, SO_TIMESTAMPNS, Int32(1), "SO_TIMESTAMPNS")
    }

    /// RTTs (ns) of the loaded echoes of `session` queued now; other datagrams (late
    /// pre-bulk echoes, KEEPALIVE_ACKs) are dropped once `heard` has been told, with the
    /// arrival time, that something of the session came in (the keepalive's sign of life).
    func poll(session: UInt32, heard: (UInt64) -> Void = { _ in }) throws -> [UInt64] {
        var rtts: [UInt64] = []
        while let n = try rx.receive(socket, waiting: false), n > 0 {
            let mono = MonotonicClock.now()
            let real = Self.realtimeNow()
            for i in 0..<n {
                guard let h = UDPDatagramHeader(rx.datagram(i)), h.session == session else { continue }
                let age = rx.timestamp(i).map { real > $0 ? real - $0 : 0 } ?? 0
                let arrival = mono &- age
                heard(arrival)
                guard h.type == .echo, h.sequence >= UDPClient.loadedSequenceBase else { continue }
                rtts.append(arrival > h.timestamp ? arrival - h.timestamp : 0)
            }
            if n < rx.capacity { break }
        }
        return rtts
    }

    /// CLOCK_REALTIME now, nanoseconds: the clock of the kernel's receive stamps.
    static func realtimeNow() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }
}
