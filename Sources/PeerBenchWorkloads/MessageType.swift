/// The type byte of every message of PeerBench's own protocols over a reliable stream:
/// the byte-stream frames of tcp and tls (docs/protocol/tcp.md: body length u32, then
/// this byte) and the frames on quic's streams (docs/protocol/quic.md: this byte, then
/// the body length u32). One numbering, so a message is the same number wherever it
/// travels; each protocol accepts the types it uses and refuses the others as it
/// refuses an unknown one. udp's datagrams carry a header of their own (`UDPMessageType`).
public enum MessageType: UInt8, Sendable {
    /// Client, first: the protocol and version (tcp), or the cell's 32-byte token (quic);
    /// a tcp server answers with its own.
    case hello = 0x01
    /// Client: an RTT probe {seq, ...}, answered by `echo` with the same body.
    case probe = 0x02
    case echo = 0x03
    /// tcp, tls. Client, empty: "give me a session token, I may come back" (`reconnect`).
    case resumable = 0x04
    /// tcp, tls. Server, {token u64}: the answer to `resumable`.
    case session = 0x05
    /// Client: the first frame on a re-made connection (tcp: {token u64} after HELLO;
    /// quic: the cell token); the session goes on from where it was.
    case resume = 0x06
    /// Server, {messages u64, bytes u64}: what it holds; the client carries on from there.
    case resumed = 0x07
    /// quic. Client, the cell token: the first frame of a connection that carries only
    /// loaded probes (`loadedRttProbes.flow` `separate`).
    case probeHello = 0x08
    /// One message: its body is counted, never stored.
    case data = 0x10
    /// Client: the bulk phase's messages are all sent (what it sent); answered by `report`.
    case end = 0x11
    /// Server: what it received in the bulk phase.
    case report = 0x12
    /// tcp, tls. Client, empty: the session is over; the server closes.
    case goodbye = 0x13
    /// quic. Server, just before `report`: the receiver's bulk series.
    case series = 0x14
    // The workloads beyond the upload (docs/WORKLOADS.md): each frame says what to do, so
    // a server needs no knowledge of the cell's workload.
    /// Client: send me that many messages of that size (bulk down, bidir).
    case pull = 0x20
    /// tcp, tls. Server, {messages u64, bytes u64}: the messages of a `pull` are all sent.
    case pushed = 0x21
    /// Client: answer with a response of the size it names (request-response).
    case request = 0x22
    /// tcp, tls. Server, {seq u32}, after the response's DATA.
    case response = 0x23
    /// Either side: isochronous frame `seq`, whose DATA follows (quic) or came before (tcp).
    case frame = 0x24
    /// tcp, tls. Client, {frames sent u32, ...}: the client's frames are all sent.
    case frameEnd = 0x25
    /// tcp, tls. Server, {received u32, late u32, delays...}: what it saw of the client's frames.
    case frameReport = 0x26
    /// Client, {frames, frame bytes, period ns}: send me frames on that schedule.
    case framePull = 0x27
    /// tcp, tls. Server, {frames sent u32}: the frames of a `framePull` are all sent.
    case framesSent = 0x28
    /// quic. Server on a frame-up stream: each frame's arrival on its clock.
    case frameArrivals = 0x29
    /// quic. Client, first frame of a flow stream (bulk over parallel streams): the flow's index.
    case flow = 0x2A
    /// quic. Server on a flow stream: what arrived on it.
    case flowReport = 0x2B
}
