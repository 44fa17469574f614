import Foundation
import Logging
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchTestbed

/// One authenticated client's session in `peerbench serve`: HELLO both ways, then
/// cells one at a time (CELL_REQUEST -> SERVER_READY -> SERVER_RESULT) until BYE. Anything else ends the session with an ERROR; a quiet client ends it after
/// the idle timeout. Never throws: how it ended is the returned reason.
struct ServeSession {
    let channel: ControlChannel
    /// The channel's TCP connection, watched for a hang-up during cells.
    let socket: Socket
    let peer: String
    let local: String
    let configuration: ServeConfiguration
    let log: ServeLog
    let logger: Logger

    /// Runs the session to its end; returns why it ended and how many cells ran.
    func run() async -> (reason: String, cells: Int) {
        let limits = configuration.limits
        let hello: ControlMessage
        do { hello = try await io { try channel.receive(timeoutSeconds: limits.helloTimeoutSeconds) } } catch {
            await answerProtocolError(error)
            return ("no HELLO: \(error)", 0)
        }
        guard case .hello(let theirs) = hello else {
            try? await send(.error(code: ControlErrorCode.protocolViolation, message: "the session must start with HELLO"))
            return ("the client did not start with HELLO", 0)
        }
        let mine = RemoteLink.controlProtocolVersions
        guard theirs.protocolVersions.contains(where: mine.contains) else {
            let text =
                "no common control protocol version: the client speaks \(theirs.protocolVersions.map(String.init).joined(separator: ",")), this serve speaks \(mine.map(String.init).joined(separator: ","))"
            try? await send(.error(code: ControlErrorCode.versionMismatch, message: text))
            return (text, 0)
        }
        do {
            try await send(
                .hello(ControlMessage.Hello(protocolVersions: mine, softwareVersion: configuration.software, plugins: configuration.plugins)))
        } catch {
            return ("could not answer HELLO: \(error)", 0)
        }
        if theirs.plugins != configuration.plugins {
            log.line(
                "session from \(peer): plugins differ (client: \(theirs.plugins.joined(separator: ",")); serve: \(configuration.plugins.joined(separator: ",")))"
            )
        }
        var cells = 0
        while true {
            let message: ControlMessage
            // A client that pings is alive (`run --interactive` pings while the peer is carried).
            do { message = try await io { try channel.receive(timeoutSeconds: limits.idleTimeoutSeconds, pingRestartsWait: true) } } catch {
                await answerProtocolError(error)
                return (Self.describe(error, idle: limits.idleTimeoutSeconds), cells)
            }
            // (PINGs never get here: `receive` answers them itself.)
            switch message {
            case .cellRequest(let body):
                cells += 1
                if let end = await cell(body) { return (end, cells) }
            case .bye:
                return ("the client said BYE", cells)
            default:
                try? await send(.error(code: ControlErrorCode.protocolViolation, message: "unexpected \(message.type.description) between cells"))
                return ("the client sent \(message.type.description) between cells", cells)
            }
        }
    }

    /// One cell; returns why the session must end, or nil to go on.
    private func cell(_ body: JSONValue) async -> String? {
        let request: RemoteCell.Request
        do { request = try RemoteCell.decode(RemoteCell.Request.self, from: body, "CELL_REQUEST") } catch {
            log.line("cell from \(peer): refused: \(error)")
            do { try await send(.error(code: ControlErrorCode.badRequest, message: "\(error)")) } catch { return "could not refuse a cell: \(error)" }
            return nil
        }
        let what = "cell \(request.cellID)#\(request.repetition) \(request.label) (\(request.environment), \(request.distanceLabel) m)"
        let endpoint = Endpoint(address: local, allowedPeer: peer, dataPorts: configuration.dataPorts)
        let running: ServeCell
        do {
            running = try await ServeCell.start(
                request, registry: configuration.registry, endpoint: endpoint, peer: peer,
                limits: configuration.limits, identity: configuration.identity, logger: logger)
        } catch {
            log.line("\(what): refused: \(error)")
            do { try await send(.error(code: ControlErrorCode.badRequest, message: "\(error)")) } catch { return "could not refuse a cell: \(error)" }
            return nil
        }
        // This end's interface before and after the cell, for the client's record.
        let interface = (try? LinkInspection.route(to: peer))?.interface
        let before = interface.map { LinkInspection.snapshot(interface: $0) }
        do {
            try await send(
                .serverReady(
                    RemoteCell.encode(
                        RemoteCell.Ready(
                            port: running.address.port, hello: running.hello, link: before,
                            dataKey: CellDataKey.hex(running.dataKey),
                            certificateSHA256: running.certificateSHA256))))
        } catch {
            running.stop()
            _ = await running.result()
            log.line("\(what): client gone before SERVER_READY (\(error))")
            return "the client went away: \(error)"
        }
        // The client may die mid-cell: then its control connection closes, and the
        // server is stopped at once instead of waiting for the cell's deadline.
        let watcher = ServeControlWatch(socket: socket) { running.stop() }
        var result = await running.result()
        let gone = watcher.end()
        result.link = interface.map { LinkInspection.snapshot(interface: $0) }
        log.line(
            "\(what) on port \(running.address.port): \(result.status) in \(String(format: "%.3f", result.seconds)) s\(result.error.map { ": \($0)" } ?? "")"
        )
        if gone { return "the client went away during a cell" }
        do { try await send(.serverResult(RemoteCell.encode(result))) } catch {
            return "the client went away before SERVER_RESULT: \(error)"
        }
        return nil
    }

    /// A frame that does not decode ends the session with the ERROR 2 that
    /// docs/protocol/control.md promises, when it can still be sent.
    private func answerProtocolError(_ error: any Error) async {
        guard case .protocolError(let e)? = error as? ControlChannelError else { return }
        try? await send(.error(code: ControlErrorCode.protocolViolation, message: "\(e)"))
    }

    private func send(_ m: ControlMessage) async throws {
        try await io { try channel.send(m) }
    }

    private func io<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await BlockingThread.run(name: "serve-control", namespace: nil, body)
    }

    /// Why waiting for the client's next message ended, for the log.
    static func describe(_ error: any Error, idle: Double) -> String {
        switch error as? ControlChannelError {
        case .timedOut?: "idle for \(seconds(idle)) s (--idle-timeout)"
        case .closed?: "the client closed the connection"
        default: "\(error)"
        }
    }
}
