#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
public import Logging
public import PeerBenchCore

/// What `peerbench serve` was started with.
public struct ServeConfiguration: Sendable {
    /// The control port's address (`--listen`).
    public var listen: SocketAddress
    public var key: PreSharedKey
    /// Where cells' servers bind (`--data-ports`).
    public var dataPorts: ClosedRange<UInt16>
    public var limits: ServeLimits
    /// Serve one session, then exit (`--once`).
    public var once: Bool
    public var registry: PluginRegistry
    /// This build's name and version, for HELLO.
    public var software: String

    public init(listen: SocketAddress, key: PreSharedKey, dataPorts: ClosedRange<UInt16> = ServeLimits.defaultDataPorts,
                limits: ServeLimits = ServeLimits(), once: Bool = false, registry: PluginRegistry, software: String) {
        self.listen = listen
        self.key = key
        self.dataPorts = dataPorts
        self.limits = limits
        self.once = once
        self.registry = registry
        self.software = software
    }

    /// The plugins HELLO lists: what this serve will run.
    public var plugins: [String] { registry.names.filter { $0 != "exec" || limits.allowExec } }
}

/// `peerbench serve`: listens on the control port and serves one authenticated
/// session at a time. A client that connects while a session runs gets BUSY once it
/// has authenticated (nothing is revealed before) and is closed; at most
/// `maxWaitingHandshakes` such handshakes run at once, further connections are
/// closed at once, so a flood costs bounded memory.
public final class ServeResponder: Sendable {
    public static let maxWaitingHandshakes = 4

    let configuration: ServeConfiguration
    let log: ServeLog
    let logger: Logger
    private let listener: Socket
    /// Where the control port actually listens (the kernel's port when 0 was asked).
    public let address: SocketAddress
    private struct State {
        var sessionActive = false
        var waitingHandshakes = 0
        var stopped = false
        var sessions = 0
    }
    private let state = Mutex(State())

    /// Binds the control port (so a bad `--listen` fails before anything else).
    public init(_ configuration: ServeConfiguration, log: ServeLog = ServeLog(), logger: Logger) throws {
        self.configuration = configuration
        self.log = log
        self.logger = logger
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

    /// Serves until `stop()` (or, with `--once`, until the first session has ended).
    public func run() async {
        let c = configuration
        log.line("listening on \(address) (data ports \(c.dataPorts.lowerBound)-\(c.dataPorts.upperBound), idle timeout \(seconds(c.limits.idleTimeoutSeconds)) s, plugins \(c.plugins.joined(separator: ",")))")
        let listener = self.listener
        await withTaskGroup(of: Void.self) { group in
            while !state.withLock({ $0.stopped }) {
                let accepted = try? await BlockingThread.run(name: "serve-accept", namespace: nil) { () throws -> Socket? in
                    try listener.setReceiveTimeout(nanoseconds: 200_000_000)
                    return try listener.accept()
                }
                guard let connection = accepted ?? nil else { continue }
                group.addTask { await self.handle(connection) }
            }
            await group.waitForAll()
        }
        listener.close()
    }

    /// Stops accepting; a running session ends at its next message or idle timeout.
    public func stop() {
        state.withLock { $0.stopped = true }
    }

    private func handle(_ connection: Socket) async {
        let peer = ((try? connection.remoteAddress()).flatMap { RemotePeer.numeric($0.host) }) ?? "?"
        enum Role { case session, busy, drop }
        let role = state.withLock { s -> Role in
            if !s.sessionActive { s.sessionActive = true; return .session }
            if s.waitingHandshakes < Self.maxWaitingHandshakes { s.waitingHandshakes += 1; return .busy }
            return .drop
        }
        switch role {
        case .drop:
            connection.close()
        case .busy:
            defer { state.withLock { $0.waitingHandshakes -= 1 } }
            await refuseBusy(connection, peer: peer)
        case .session:
            await session(connection, peer: peer)
            let stopNow = state.withLock { s -> Bool in
                s.sessionActive = false
                s.sessions += 1
                return configuration.once
            }
            if stopNow { stop() }
        }
    }

    private func refuseBusy(_ connection: Socket, peer: String) async {
        let c = configuration
        do {
            let channel = try await BlockingThread.run(name: "serve-busy", namespace: nil) {
                try ControlChannel.accept(connection, key: c.key, handshakeTimeoutSeconds: c.limits.handshakeTimeoutSeconds)
            }
            _ = try? await BlockingThread.run(name: "serve-busy", namespace: nil) { try channel.send(.busy) }
            channel.close()
            log.line("session from \(peer): refused, busy with another session")
        } catch {
            connection.close()
            log.line("connection from \(peer) (while busy): \(error)")
        }
    }

    private func session(_ connection: Socket, peer: String) async {
        let c = configuration
        let local = ((try? connection.localAddress()).flatMap { RemotePeer.numeric($0.host) }) ?? c.listen.host
        let channel: ControlChannel
        do {
            channel = try await BlockingThread.run(name: "serve-handshake", namespace: nil) {
                try ControlChannel.accept(connection, key: c.key, handshakeTimeoutSeconds: c.limits.handshakeTimeoutSeconds)
            }
        } catch {
            connection.close()
            log.line("connection from \(peer): \(error)")
            return
        }
        log.line("session from \(peer): started")
        let t0 = MonotonicClock.now()
        let (reason, cells) = await ServeSession(channel: channel, socket: connection, peer: peer, local: local, configuration: c, log: log, logger: logger).run()
        channel.close()
        log.line("session from \(peer): ended after \(cells) cell\(cells == 1 ? "" : "s") in \(seconds((Double(MonotonicClock.elapsed(since: t0)) / 1e7).rounded() / 100)) s: \(reason)")
    }
}
