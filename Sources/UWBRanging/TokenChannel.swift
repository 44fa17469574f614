import PeerBenchPlugin
public import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

/// An out-of-band channel that swaps two discovery tokens, as an NI app does over
/// Multipeer Connectivity or a Bluetooth LE GATT service. Both built-in channels
/// run over one TCP connection through the cell's link (docs/protocol/uwb.md).
///
/// The channel carries bytes, not tokens: it never judges what it carries, so a
/// malformed token arrives intact and is rejected by `DiscoveryToken(serialized:)`
/// on the receiving side, as NI rejects it in `run`.
public protocol TokenChannel: Sendable {
    /// Which wire protocol this is (`message`, `gatt`).
    var kind: TokenChannelKind { get }
    /// Client side (the one that connects): sends `token`, returns the peer's bytes.
    /// `connection` is connected to the serving side; `start` is when the exchange
    /// began (before connecting), so the time includes connection set-up.
    func exchange(_ token: [UInt8], over connection: Socket, start: UInt64, deadline: UInt64) throws -> TokenExchange
    /// Serving side: receives the client's bytes on `connection` and answers with `token`.
    func serve(_ token: [UInt8], over connection: Socket, deadline: UInt64) throws -> TokenExchange
}

/// The built-in channels, by the name matrix.json uses.
public enum TokenChannelKind: String, Sendable, CaseIterable {
    /// One reliable message each way (like Multipeer Connectivity).
    case message
    /// ATT-like long write and read blob with ATT_MTU 185, one connection interval per operation.
    case gatt
}

extension TokenChannelKind {
    /// The channel with its default settings (`gatt`: 30 ms connection interval).
    public func channel(connectionIntervalMs: Double = GATTTokenChannel.defaultConnectionIntervalMs) -> any TokenChannel {
        switch self {
        case .message: MessageTokenChannel()
        case .gatt: GATTTokenChannel(connectionIntervalMs: connectionIntervalMs)
        }
    }
}

extension Socket {
    /// Blocks until the peer closes the connection (or it fails, or `deadline` passes).
    /// The channel's connection outlives the exchange, like a Multipeer session or a
    /// BLE connection, so the serving side learns reliably when the client is gone
    /// even if every ranging frame is lost.
    func waitForClose(deadline: UInt64) {
        var scratch = [UInt8](repeating: 0, count: 64)
        while MonotonicClock.now() < deadline {
            guard let readable = try? waitReadable(timeoutNanos: 100_000_000) else { return }
            guard readable else { continue }
            do {
                // nil: a spurious wake-up; > 0: stray bytes, ignored; 0: end of stream.
                let n = try scratch.withUnsafeMutableBytes { try receive($0, flags: Int32(MSG_DONTWAIT)) }
                if n == 0 { return }
            } catch {
                return
            }
        }
    }
}

/// Opens the client side's connection to a token channel server.
public func connectTokenChannel(to server: SocketAddress) throws -> Socket {
    let s = try Socket(family: server.family, type: Int32(SOCK_STREAM.rawValue))
    try connectTokenChannel(s, to: server)
    return s
}

/// Connects `socket` (a fresh TCP socket) to a token channel server.
public func connectTokenChannel(_ socket: Socket, to server: SocketAddress) throws {
    try socket.connect(server)
    // Each token operation is one small write that must leave at once.
    try socket.setOption(Int32(IPPROTO_TCP), TCP_NODELAY, Int32(1), "TCP_NODELAY")
}

extension Socket {
    /// Reads exactly `count` bytes before `deadline`, or throws naming `what`.
    func read(_ count: Int, before deadline: UInt64, _ what: String) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return out }
        let now = MonotonicClock.now()
        guard deadline > now else { throw TokenChannelError("timed out waiting for \(what)") }
        try setReceiveTimeout(nanoseconds: deadline - now)
        let complete: Bool
        do {
            complete = try out.withUnsafeMutableBytes { try receiveExactly($0) }
        } catch let e as SystemError where e.errno == EAGAIN || e.errno == EWOULDBLOCK {
            throw TokenChannelError("timed out waiting for \(what)")
        }
        guard complete else { throw TokenChannelError("the peer closed the channel while sending \(what)") }
        return out
    }

    func write(_ bytes: [UInt8], _ what: String) throws {
        let ok = try bytes.withUnsafeBytes { try sendAll($0) }
        guard ok else { throw TokenChannelError("the peer closed the channel before \(what) was sent") }
    }
}
