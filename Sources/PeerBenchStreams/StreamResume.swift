import PeerBenchPlugin
import PeerBenchSystem

// The client's half of resuming (docs/protocol/tcp.md, "Reconnect"): the frames that
// ask for a session token and present it on a re-made connection. The server's half
// is `StreamResumeHost`.

/// What RESUMED says the server holds: its DATA messages and bytes.
public typealias StreamResumed = (messages: Int, bytes: Int)

extension StreamWorkloadClient {
    /// RESUMABLE, answered by SESSION {token}: the token a re-made connection presents.
    /// Sent right after the greeting (tcp's HELLO, tls's handshake), before the probes.
    public func requestResumption() throws -> UInt64 {
        try StreamFraming.controlFrame(.resumable, [any FixedWidthInteger]()).withUnsafeBytes {
            try send($0, during: "asking for a session token")
        }
        let reply = try nextControl("the server's SESSION", closed: "instead of answering RESUMABLE (a server without reconnect?)")
        guard reply.type == .session, reply.body.count == 8 else {
            throw TransportError("\(transport) client: expected SESSION {token}, got a \(reply.type) frame of \(reply.body.count) bytes")
        }
        return reply.body.readBE(UInt64.self, at: 0)
    }

    /// On a re-made connection: `greeting`'s HELLO (tcp) and RESUME {token} in one
    /// write, then the server's HELLO and RESUMED {messages, bytes}.
    public func resume(_ token: UInt64, greeting: StreamGreeting?) throws -> StreamResumed {
        let frames = (greeting?.frame ?? []) + StreamFraming.controlFrame(.resume, [token])
        try frames.withUnsafeBytes { try send($0, during: "before RESUME") }
        if let greeting {
            let hello = try nextControl("the server's HELLO", closed: "instead of answering HELLO")
            guard hello.type == .hello, greeting.accepts(hello.body) else {
                throw TransportError("\(transport) client: the server did not answer with a \(greeting.name) HELLO")
            }
        }
        let reply = try nextControl("the server's RESUMED", closed: "instead of answering RESUME (session refused)")
        guard reply.type == .resumed, reply.body.count == 16 else {
            throw TransportError("\(transport) client: expected RESUMED, got a \(reply.type) frame of \(reply.body.count) bytes")
        }
        return (Int(clamping: reply.body.readBE(UInt64.self, at: 0)), Int(clamping: reply.body.readBE(UInt64.self, at: 8)))
    }
}
