import Foundation
public import Logging
import PeerBenchPlugin
public import PeerBenchSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `peerbench serve`: listens on the control port and serves one authenticated
/// session at a time. Only a client that completed the handshake with the key can
/// take the session: one that connects while a session runs gets BUSY once it has
/// authenticated (nothing is revealed before) and is closed. Handshakes are shared
/// fairly between source addresses (`ServeAdmission`): at most
/// `maxHandshakesPerAddress` at once from one address and `maxHandshakes` in all,
/// each bounded by the handshake timeout. A connection beyond them is told "busy, try
/// again" (`ServeRefusal`) and closed, and the drop is logged, rate-limited
/// (`ServeDropLog`): a stranger holding as many slow connections as it likes fills
/// only its own address's share, so a client from another address still gets in.
public final class ServeResponder: Sendable {
    /// Handshakes in progress at once, from all addresses.
    static let maxHandshakes = 32
    /// Handshakes in progress at once from one source address.
    static let maxHandshakesPerAddress = 3
    /// Refusals (alert, then a short drain) in progress at once; beyond them a
    /// connection is closed unanswered, so a flood costs bounded threads.
    static let maxRefusing = 16

    let configuration: ServeConfiguration
    let log: ServeLog
    let logger: Logger
    private let listener: Socket
    /// Where the control port actually listens (the kernel's port when 0 was asked).
    public let address: SocketAddress
    private struct State {
        var sessionActive = false
        var admission = ServeAdmission(total: ServeResponder.maxHandshakes, perAddress: ServeResponder.maxHandshakesPerAddress)
        var refusing = 0
        var stopped = false
    }
    private let drops: ServeDropLog
    private let state = Mutex(State())

    /// Binds the control port (so a bad `--listen` fails before anything else).
    public init(_ configuration: ServeConfiguration, log: ServeLog = ServeLog(), logger: Logger = Logger(label: "peerbench.serve")) throws {
        var configuration = configuration
        if configuration.identity == nil { configuration.identity = try ServeIdentity.generate() }
        self.configuration = configuration
        self.log = log
        self.logger = logger
        drops = ServeDropLog(log: log)
        let s = try Socket(family: configuration.listen.family, type: Int32(SOCK_STREAM.rawValue))
        do {
            try s.setReuseAddress()
            try s.bind(configuration.listen)
            try s.listen(backlog: 8)
            address = try s.localAddress()
        } catch {
            s.close()
            throw error
        }
        listener = s
    }

    /// The certificate quic and tls cells present (made when the responder started).
    public var identity: ServeIdentity? { configuration.identity }

    /// Serves until `stop()` (or, with `--once`, until the first session has ended).
    public func run() async {
        let c = configuration
        log.line(
            "listening on \(address) (data ports \(c.dataPorts.lowerBound)-\(c.dataPorts.upperBound), idle timeout \(seconds(c.limits.idleTimeoutSeconds)) s, plugins \(c.plugins.joined(separator: ",")))"
                + (c.identity.map { "; quic and tls present this serve's own certificate, sha256 \($0.sha256Hex)" } ?? ""))
        let listener = self.listener
        // One thread accepts (waking every 200 ms to notice `stop`); each connection is
        // handled by a task of its own, its blocking steps on threads of their own. With
        // --once, `stop` comes when the session has ended, so nothing is cut short.
        _ = try? await BlockingThread.run(name: "serve-accept", namespace: nil) { [self] in
            try listener.setReceiveTimeout(nanoseconds: 200_000_000)
            while !state.withLock({ $0.stopped }) {
                do {
                    guard let connection = try listener.accept() else { continue }
                    Task { await self.handle(connection) }
                } catch {
                    // Out of descriptors or memory: wait instead of spinning; connections queue meanwhile.
                    usleep(100_000)
                }
            }
        }
        listener.close()
    }

    /// Stops accepting; a running session ends at its next message or idle timeout.
    public func stop() {
        state.withLock { $0.stopped = true }
    }

    private func handle(_ connection: Socket) async {
        let peer = ((try? connection.remoteAddress()).flatMap { RemotePeer.numeric($0.host) }) ?? "?"
        // Handshakes run side by side, a bounded number per address and in all; only
        // an authenticated client can take the session, so a stranger without the key
        // never holds it.
        let decision = state.withLock { $0.admission.admit(peer) }
        guard decision == .admitted else {
            await refuse(connection, peer: peer, decision)
            return
        }
        let c = configuration
        let channel: ControlChannel
        do {
            channel = try await BlockingThread.run(name: "serve-handshake", namespace: nil) {
                try ControlChannel.accept(connection, key: c.key, handshakeTimeoutSeconds: c.limits.handshakeTimeoutSeconds)
            }
        } catch {
            state.withLock { $0.admission.release(peer) }
            connection.close()
            drops.dropped(peer, "dropped: \(error)")
            return
        }
        let mine = state.withLock { s -> Bool in
            s.admission.release(peer)
            if s.sessionActive { return false }
            s.sessionActive = true
            return true
        }
        guard mine else {
            _ = try? await BlockingThread.run(name: "serve-busy", namespace: nil) { try channel.send(.busy) }
            channel.close()
            log.line("session from \(peer): refused, busy with another session")
            return
        }
        let ended = await session(channel, connection, peer: peer)
        let stopNow = state.withLock { s -> Bool in
            s.sessionActive = false
            return c.once
        }
        // Logged once serve is free again: a client that waits for this line is never
        // told BUSY by the session it just saw end.
        log.line(ended)
        if stopNow { stop() }
    }

    /// Tells a connection beyond the handshake slots "busy, try again" (at most
    /// `maxRefusing` at once; beyond that it is closed unanswered) and logs the drop.
    private func refuse(_ connection: Socket, peer: String, _ decision: ServeAdmission.Decision) async {
        let why =
            decision == .addressFull
            ? "refused: busy (\(Self.maxHandshakesPerAddress) handshakes already running from this address)"
            : "refused: busy (all \(Self.maxHandshakes) handshake slots taken)"
        drops.dropped(peer, why)
        let answer = state.withLock { s -> Bool in
            guard s.refusing < Self.maxRefusing else { return false }
            s.refusing += 1
            return true
        }
        guard answer else {
            connection.close()
            return
        }
        _ = try? await BlockingThread.run(name: "serve-refuse", namespace: nil) { ServeRefusal.refuse(connection) }
        state.withLock { $0.refusing -= 1 }
    }

    /// Runs one authenticated session; returns its end line.
    private func session(_ channel: ControlChannel, _ connection: Socket, peer: String) async -> String {
        let c = configuration
        let local = ((try? connection.localAddress()).flatMap { RemotePeer.numeric($0.host) }) ?? c.listen.host
        log.line("session from \(peer): started")
        let t0 = MonotonicClock.now()
        let (reason, cells) = await ServeSession(
            channel: channel, socket: connection, peer: peer, local: local, configuration: c, log: log, logger: logger
        ).run()
        channel.close()
        return
            "session from \(peer): ended after \(cells) cell\(cells == 1 ? "" : "s") in \(seconds((Double(MonotonicClock.elapsed(since: t0)) / 1e7).rounded() / 100)) s: \(reason)"
    }
}
