import Foundation
import PeerBenchJSON
public import PeerBenchPlugin
public import PeerBenchSystem
import PeerBenchTestbed
import Synchronization

/// `run --link remote`: the testbed whose server endpoint is another host running
/// `peerbench serve`. It owns the authenticated control session for the whole run;
/// each cell's server starts on the peer (`RemoteServerHost`), the client runs here.
/// Losing the session (serve stopped, the link gone) fails the running cell and
/// stops the run (`lostReason`); `--resume` continues it once serve is back.
public final class RemoteTestbed: Testbed, RemoteServerHost {
    /// Seconds to connect and authenticate.
    static let connectTimeoutSeconds = 10.0

    public let peer: SocketAddress
    private let channel: ControlChannel
    /// The address the peer reaches this host at (the control connection's own).
    public let localAddress: String
    /// What serve said in its HELLO.
    let peerSoftware: String
    let peerPlugins: [String]

    private struct State {
        var controlRttMs: Double?
        /// The kernel's view of the link for the current cell (link inspection).
        var route: LinkRoute?
        var clientBefore: InterfaceSnapshot?
        var serverBefore: InterfaceSnapshot?
        var serverAfter: InterfaceSnapshot?
        var lost: String?
        /// The previous cell's server whose SERVER_RESULT is still due.
        var pending: RemoteCellServer?
    }
    private let state = Mutex(State())

    public var mode: LinkMode { .remote }
    public var serverHost: (any RemoteServerHost)? { self }
    public var lostReason: String? { state.withLock { $0.lost } }
    public var peerDescription: String { "\(peer) (\(peerSoftware))" }

    private init(peer: SocketAddress, channel: ControlChannel, localAddress: String, hello: ControlMessage.Hello) {
        self.peer = peer
        self.channel = channel
        self.localAddress = localAddress
        peerSoftware = hello.softwareVersion
        peerPlugins = hello.plugins
    }

    /// Reads the pre-shared key file (refusing one others can read).
    public static func loadKey(_ path: String) throws -> PreSharedKey {
        try PreSharedKey.load(from: path)
    }

    /// Connects, authenticates and exchanges HELLO. `needed` are the plugins the run
    /// uses: one the peer lacks is an error naming both lists.
    public static func connect(
        to peer: SocketAddress, key: PreSharedKey, plugins: [String], needed: [String],
        software: String
    ) async throws -> RemoteTestbed {
        let channel = try await BlockingThread.run(name: "remote-connect", namespace: nil) {
            try ControlChannel.connect(to: peer, key: key, timeoutSeconds: connectTimeoutSeconds)
        }
        do {
            let mine = RemoteLink.controlProtocolVersions
            let reply = try await BlockingThread.run(name: "remote-hello", namespace: nil) { () throws -> ControlMessage in
                try channel.send(.hello(ControlMessage.Hello(protocolVersions: mine, softwareVersion: software, plugins: plugins)))
                return try channel.receive(timeoutSeconds: connectTimeoutSeconds)
            }
            let theirs: ControlMessage.Hello
            switch reply {
            case .hello(let h): theirs = h
            case .busy: throw RemoteLinkError("\(peer) is busy with another session (serve runs one at a time); try again when it ends")
            case .error(_, let message): throw RemoteLinkError("\(peer) refused the session: \(message)")
            default: throw RemoteLinkError("\(peer) answered HELLO with \(reply.type.description)")
            }
            guard theirs.protocolVersions.contains(where: mine.contains) else {
                throw RemoteLinkError(
                    "no common control protocol version: this peerbench speaks \(mine.map(String.init).joined(separator: ",")), the serve at \(peer) speaks \(theirs.protocolVersions.map(String.init).joined(separator: ","))"
                )
            }
            let missing = needed.filter { !theirs.plugins.contains($0) }
            guard missing.isEmpty else {
                throw RemoteLinkError(
                    "the serve at \(peer) cannot run \(missing.joined(separator: ", ")), which the matrix uses: its plugins are \(theirs.plugins.joined(separator: ", ")); this peerbench's are \(plugins.joined(separator: ", "))"
                )
            }
            let local = try localAddress(towards: peer)
            return RemoteTestbed(peer: peer, channel: channel, localAddress: local, hello: theirs)
        } catch {
            channel.close()
            throw error
        }
    }

    /// The address this host reaches `peer` from: a UDP socket connected towards it
    /// (nothing is sent) gets it from the kernel's route. The client's endpoint, so the
    /// peer's data ports admit exactly what arrives from here.
    static func localAddress(towards peer: SocketAddress) throws -> String {
        let s = try Socket(family: peer.family, type: Int32(SOCK_DGRAM.rawValue))
        defer { s.close() }
        try s.connect(peer)
        return RemotePeer.numeric(try s.localAddress().host) ?? peer.host
    }

    /// Measures the control channel's RTT just before the cell (it goes into the
    /// record) and returns the endpoints: this host, the peer.
    public func configure(_ link: ResolvedLink, seed: UInt64) async throws -> (client: Endpoint, server: Endpoint) {
        try await collectPending()
        let rtt = try await control { channel in try channel.measureRTT() }
        // What the kernel says about the real link, before the cell (after: `annotate`).
        let route = try? LinkInspection.route(to: peer.host)
        let before = route.map { LinkInspection.snapshot(interface: $0.interface) }
        state.withLock { s in
            s.controlRttMs = rtt
            s.route = route
            s.clientBefore = before
            s.serverBefore = nil
            s.serverAfter = nil
        }
        return (Endpoint(address: localAddress), Endpoint(address: peer.host))
    }

    public func counters() -> LinkCounters? { nil }

    /// Between cells, keeps the session inside serve's idle timeout (`run --interactive`
    /// waits minutes while the peer is carried): collects what is pending, then one ping.
    public func keepAlive() async {
        _ = try? await collectPending()
        _ = try? await control { channel in try channel.measureRTT(probes: 1) }
    }

    public func annotate(_ link: inout RecordLink) {
        let s = state.withLock { $0 }
        link.peerAddress = peer.host
        link.controlRttMs = s.controlRttMs
        guard let route = s.route, let before = s.clientBefore else { return }
        let after = LinkInspection.snapshot(interface: route.interface)
        let server = s.serverBefore.flatMap { b in s.serverAfter.map { (before: b, after: $0) } }
        RemoteLinkContext.fill(&link, route: route, pathMTU: nil, client: (before, after), server: server)
    }

    public func startServer(
        transport: TransportSpec, cell: CellContextSeed, link: ResolvedLink,
        timeoutSeconds: Double
    ) async throws -> any TransportServer {
        let request = RemoteCell.Request(transport: transport, cell: cell, link: link, timeoutSeconds: timeoutSeconds)
        let reply = try await control { channel -> ControlMessage in
            try channel.send(.cellRequest(RemoteCell.encode(request)))
            return try channel.receive(timeoutSeconds: timeoutSeconds)
        }
        switch reply {
        case .serverReady(let body):
            let ready = try RemoteCell.decode(RemoteCell.Ready.self, from: body, "SERVER_READY")
            state.withLock { $0.serverBefore = ready.link }
            // The cell's data-plane key reaches the client plugin through its hello
            // (`CellDataKey.helloKey`), as the runner hands hellos over.
            var hello = ready.hello
            if let key = ready.dataKey.flatMap(CellDataKey.parse) { hello[CellDataKey.helloKey] = .string(CellDataKey.hex(key)) }
            // So does the digest of serve's certificate, which tls and quic clients pin.
            hello[CertificatePin.helloKey] = ready.certificateSHA256.flatMap(CertificatePin.parse).map { .string(CertificatePin.hex($0)) }
            let server = RemoteCellServer(
                testbed: self, address: SocketAddress(host: peer.host, port: ready.port), hello: hello,
                deadline: MonotonicClock.now() + UInt64(timeoutSeconds * 1e9))
            state.withLock { $0.pending = server }
            return server
        case .error(_, let message):
            throw RemoteLinkError(message)
        default:
            throw lose("the peer answered CELL_REQUEST with \(reply.type.description)")
        }
    }

    /// Waits for SERVER_RESULT (until the cell's deadline plus one grace period).
    fileprivate func result(deadline: UInt64) async throws -> RemoteCell.Result {
        let now = MonotonicClock.now()
        let wait = Double(deadline > now ? deadline - now : 0) / 1e9 + cellGraceSeconds
        let reply = try await control { channel in try channel.receive(timeoutSeconds: wait) }
        guard case .serverResult(let body) = reply else { throw lose("the peer sent \(reply.type.description) instead of SERVER_RESULT") }
        let result = try RemoteCell.decode(RemoteCell.Result.self, from: body, "SERVER_RESULT")
        state.withLock { $0.serverAfter = result.link }
        return result
    }

    /// The previous cell's result, if the runner stopped waiting for it: control
    /// messages are in order, so it must be read before the next request.
    private func collectPending() async throws {
        guard let pending = state.withLock({ $0.pending }) else { return }
        _ = try? await pending.collect()
        if let lost = lostReason { throw RemoteLinkError(lost) }
    }

    fileprivate func finished(_ server: RemoteCellServer) {
        state.withLock { s in if s.pending === server { s.pending = nil } }
    }

    /// Runs `body` with the control channel on a thread of its own; any failure of
    /// the channel loses the session.
    private func control<T: Sendable>(_ body: @escaping @Sendable (ControlChannel) throws -> T) async throws -> T {
        if let lost = lostReason { throw RemoteLinkError(lost) }
        let channel = self.channel
        do {
            return try await BlockingThread.run(name: "remote-control", namespace: nil) { try body(channel) }
        } catch {
            throw lose("the control session with \(peer) ended: \(error) (was serve stopped?)")
        }
    }

    private func lose(_ why: String) -> RemoteLinkError {
        let reason = state.withLock { s -> String in
            if s.lost == nil { s.lost = why }
            return s.lost!
        }
        channel.close()
        return RemoteLinkError(reason)
    }

    public func shutdown() async {
        if lostReason == nil {
            let channel = self.channel
            _ = try? await BlockingThread.run(name: "remote-bye", namespace: nil) { try channel.send(.bye) }
        }
        channel.close()
    }
}

/// One cell's server on the peer, as the runner sees it: `finish` waits for
/// SERVER_RESULT and throws the server's error.
final class RemoteCellServer: TransportServer, Sendable {
    let address: SocketAddress
    let hello: JSONObject
    private let testbed: RemoteTestbed
    private let deadline: UInt64
    private let outcome = Mutex<Result<RemoteCell.Result, RemoteLinkError>?>(nil)

    init(testbed: RemoteTestbed, address: SocketAddress, hello: JSONObject, deadline: UInt64) {
        self.testbed = testbed
        self.address = address
        self.hello = hello
        self.deadline = deadline
    }

    func finish() async throws {
        let r = try await collect()
        switch r.status {
        case "ok": return
        default: throw RemoteLinkError("\(r.status): \(r.error ?? "no detail")")
        }
    }

    /// Reads SERVER_RESULT once; later calls return what was read.
    func collect() async throws -> RemoteCell.Result {
        if let done = outcome.withLock({ $0 }) { return try done.get() }
        let result: Result<RemoteCell.Result, RemoteLinkError>
        do { result = .success(try await testbed.result(deadline: deadline)) } catch {
            result = .failure(error as? RemoteLinkError ?? RemoteLinkError("\(error)"))
        }
        outcome.withLock { $0 = result }
        testbed.finished(self)
        return try result.get()
    }

    /// Stops waiting here; the peer stops its server at the cell's deadline and the
    /// testbed reads the result before the next cell.
    func stop() {}

    /// serve's CPU time for the server side, once SERVER_RESULT was read: a finite,
    /// non-negative figure of at most 64 threads busy for the whole session, else nil
    /// (a peer's number is input, not a fact).
    var cpuSeconds: Double? {
        guard case .success(let r) = outcome.withLock({ $0 }), let cpu = r.cpuSeconds, cpu.isFinite, cpu >= 0,
            r.seconds.isFinite, cpu <= max(r.seconds, 0) * 64 + 1
        else { return nil }
        return cpu
    }
}

/// An error of the remote link with a message for the user or the record.
struct RemoteLinkError: Error, Sendable, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
