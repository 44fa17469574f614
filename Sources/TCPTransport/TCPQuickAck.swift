import PeerBenchStreams
import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

/// tcp's `quickAck`: the connection acknowledges what it received as soon as the app
/// has read it, instead of holding the ACK for Linux's delayed-ACK timer (40 ms and
/// up). Apple's stack, the phones', does not hold it there: xnu's `tcp_cc_delay_ack`
/// (bsd/netinet/tcp_cc.c) delays an ACK only while received data waits unread in the
/// socket, and ACKs a segment with PUSH at once under its older strategies. Linux has
/// no setting that stays on for a socket: TCP_QUICKACK lasts until its own ACK logic
/// next decides (tcp(7): "not permanent"), so it is set again after every read.
/// With Nagle on, a held ACK is what keeps the last short segment of a burst waiting
/// (docs/FIELD-STUDY.md, TCP's round trips).
final class QuickAckStream: ByteStream {
    private let socket: Socket

    init(_ socket: Socket) { self.socket = socket }

    func readSome(_ buffer: UnsafeMutableRawBufferPointer) throws -> Int? {
        let n = try socket.receive(buffer)
        // A socket the peer has closed may refuse the option; the read's result stands.
        try? socket.setOption(Int32(IPPROTO_TCP), TCP_QUICKACK, Int32(1), "TCP_QUICKACK")
        return n
    }

    func writeAll(_ bytes: UnsafeRawBufferPointer) throws -> Bool { try socket.sendAll(bytes) }

    func shutdown() { socket.shutdown() }
}

extension TCPOptions {
    /// What the workload reads and writes: the socket itself, or with `quickAck` the
    /// socket behind a stream that acknowledges after every read.
    func stream(over socket: Socket) -> any ByteStream {
        quickAck ? QuickAckStream(socket) : socket
    }
}
