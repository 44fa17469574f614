import Foundation
import PeerBenchJSON
public import PeerBenchPlugin
public import PeerBenchSystem

/// External transport plugins in any language (docs/protocol/exec.md): the harness
/// runs a server command in the server endpoint and a client command in the client
/// endpoint, hands each the cell as JSON, and reads the client's measurement as JSON
/// from its standard output. Anything that goes wrong — a missing program, a non-zero
/// exit, a hang, output that is not the measurement — fails the cell with an error
/// that quotes the command's own words, and the run goes on.
public struct ExecPlugin: TransportPlugin {
    public static let descriptor = PluginDescriptor(
        name: "exec",
        summary: "An external plugin in any language: runs your server and client commands and reads the client's JSON measurement.",
        options: ExecOptions.descriptors
    )

    let options: ExecOptions

    public init(options: PluginOptions) throws {
        self.options = try ExecOptions(options)
    }

    init(_ options: ExecOptions) {
        self.options = options
    }

    public func startServer(_ cell: CellContext) async throws -> any TransportServer {
        guard let argv = options.server else {
            return ExecServer(
                process: nil, address: SocketAddress(host: cell.server.address, port: 0), hello: JSONObject(),
                graceSeconds: 0, documentPath: nil)
        }
        let killAt = Self.killDeadline(cell)
        let command = try ExecCommand(role: "server", argv: argv, workingDirectory: options.workingDirectory)
        let document = ExecCellDocument.make(
            role: "server", cell: cell, listenHost: cell.server.address, server: nil,
            secondsLeft: Self.seconds(until: killAt), config: options.config)
        let file = try ExecCellDocument.write(document, role: "server", cellID: cell.cellID)
        // The server may read its document by path at any time: it lives until the server ends.
        var keepFile = false
        defer { if !keepFile { try? FileManager.default.removeItem(atPath: file) } }
        let (process, started) = try Self.launch(command, role: "server", in: cell.server, file: file, cell)
        let line = try await BlockingThread.run(name: "exec-server-ready") { process.stdout.waitForFirstLine(until: killAt.asWallClockDate) }
        guard let text = line.line else {
            if line.ended, let status = try await BlockingThread.run(name: "exec-server-exit", { process.waitForExit(until: killAt) }) {
                throw TransportError(
                    "exec: the server command \(command.display) \(Self.describe(status)) before printing its ready line"
                        + process.quotedOutput())
            }
            process.kill()
            throw TransportError(
                "exec: the server command \(command.display) did not print its ready line ({\"port\": N}) within "
                    + "\(Self.format(Double(MonotonicClock.elapsed(since: started)) / 1e9)) s; killed it" + process.quotedOutput())
        }
        let readyObject: JSONObject
        let port: Int
        do {
            guard let o = try JSONParser.parse(text).objectValue, let p = o["port"]?.intValue, (1...65_535).contains(p) else {
                throw TransportError("")
            }
            readyObject = o
            port = p
        } catch {
            process.kill()
            throw TransportError(
                "exec: the server command \(command.display) printed \"\(text.firstLines(1))\" as its first line; "
                    + "expected a JSON object such as {\"port\": 5201}" + process.quotedOutput())
        }
        let host = readyObject["host"]?.stringValue ?? cell.server.address
        keepFile = true
        // The ready line reaches the client as the server's hello, through the runner.
        return ExecServer(
            process: process, address: SocketAddress(host: host, port: UInt16(port)), hello: readyObject,
            graceSeconds: options.serverExitGraceSeconds, documentPath: file)
    }

    public func runClient(_ cell: CellContext, server: SocketAddress) async throws -> TransportMeasurement {
        let killAt = Self.killDeadline(cell)
        let command = try ExecCommand(role: "client", argv: options.client, workingDirectory: options.workingDirectory)
        let serverInfo = options.server == nil ? nil : (host: server.host, port: Int(server.port), ready: cell.serverHello)
        let document = ExecCellDocument.make(
            role: "client", cell: cell, listenHost: cell.client.address, server: serverInfo,
            secondsLeft: Self.seconds(until: killAt), config: options.config)
        let file = try ExecCellDocument.write(document, role: "client", cellID: cell.cellID)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let (process, started) = try Self.launch(command, role: "client", in: cell.client, file: file, cell)
        let status = try await BlockingThread.run(name: "exec-client-wait") { process.waitForExit(until: killAt) }
        guard let status else {
            process.kill()
            _ = try await BlockingThread.run(name: "exec-client-reap") { process.waitForExit(until: MonotonicClock.now() + 2_000_000_000) }
            throw TransportError(
                "exec: the client command \(command.display) did not finish within "
                    + "\(Self.format(Double(MonotonicClock.elapsed(since: started)) / 1e9)) s (the cell's deadline); "
                    + "killed its process group" + process.quotedOutput())
        }
        if cell.cancellation.isCancelled {
            throw TransportError("exec: the client command \(command.display) was stopped at the cell deadline")
        }
        if status == Self.unsupportedStatus {
            var m = TransportMeasurement()
            m.status = .unsupported
            m.error = "exec: the client command \(command.display) cannot run this cell (exit status 127)" + process.quotedOutput()
            return m
        }
        guard status == 0 else {
            throw TransportError("exec: the client command \(command.display) \(Self.describe(status))" + process.quotedOutput())
        }
        do {
            var m = try ExecMeasurementParser.parse(process.stdout.text)
            // The cell's work is the external programs', whose CPU time the harness does
            // not see: null, rather than the harness's own small share.
            m.cpuSeconds = EndPair(client: nil, server: nil)
            return m
        } catch {
            let err = process.stderr.text.firstLines(3)
            throw TransportError("exec: the client command \(command.display) \(error.message)" + (err.isEmpty ? "" : "; stderr: \(err)"))
        }
    }

    public func estimatedSeconds(payload: Payload?, rttProbes: Int, link: ResolvedLink) -> Double? { nil }

    /// The client's exit status for "this cell is not for me" (a shell's "command not
    /// found"): the cell is recorded as `unsupported`, not `failed`.
    static let unsupportedStatus: Int32 = 127

    /// Starts `command` for `role` in `endpoint`, its cell document `file` on standard
    /// input and named in the environment; the cell's cancellation kills it. Returns it
    /// and when it started.
    static func launch(
        _ command: ExecCommand, role: String, in endpoint: Endpoint, file: String, _ cell: CellContext
    ) throws -> (ExternalProcess, UInt64) {
        let process = try ExternalProcess(
            command, prefix: endpoint.commandPrefix, input: file, environment: ["PEERBENCH_CELL_FILE": file, "PEERBENCH_ROLE": role])
        let started = MonotonicClock.now()
        try process.start()
        cell.cancellation.onCancel { process.kill() }
        return (process, started)
    }

    /// When the harness kills a command: shortly before the cell's own deadline, so the
    /// plugin reports the hang itself (a `failed` cell naming the command) rather than
    /// the runner reporting an anonymous timeout.
    static func killDeadline(_ cell: CellContext) -> UInt64 {
        let remaining = cell.remainingNanos
        return MonotonicClock.now() + remaining - min(1_000_000_000, remaining / 10)
    }

    static func seconds(until deadline: UInt64) -> Double {
        let now = MonotonicClock.now()
        return deadline > now ? Double(deadline - now) / 1e9 : 0
    }

    static func format(_ seconds: Double) -> String { String(format: "%.1f", seconds) }

    /// An exit status in words: `exited with status 3`, `was killed by signal 9`.
    static func describe(_ status: Int32) -> String {
        status > 128 ? "was killed by signal \(status - 128)" : "exited with status \(status)"
    }
}
