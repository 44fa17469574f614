/// The files a new transport starts from. `__Name__` becomes the type stem (`Echo`),
/// `__name__` the matrix plugin name (`echo`). The plugin is a complete, minimal
/// transport — the standard workload over one plain TCP connection — so the new module
/// builds and its test passes before its author changes a line.
enum Templates {
    static func fill(_ template: String, _ name: TransportName) -> String {
        template.replacingOccurrences(of: "__Name__", with: name.typeStem).replacingOccurrences(of: "__name__", with: name.pluginName)
    }

    static func plugin(_ name: TransportName) -> String { fill(pluginTemplate, name) }
    static func test(_ name: TransportName) -> String { fill(testTemplate, name) }

    static let pluginTemplate = #"""
#if canImport(Glibc)
import Glibc
#endif
import Foundation
public import PeerBenchCore

/// __Name__: a transport plugin made by `swift package new-transport __Name__`.
///
/// It starts as a working minimal transport — the standard workload over one plain
/// TCP connection — so it builds, runs and passes its test as generated. Replace the
/// socket code with your protocol and keep the shape; docs/PLUGINS.md explains each part.
///
/// Wire format (integers big-endian):
/// - client -> server HELLO: probes (u64), message count (u64), message size (u64)
/// - each RTT probe: the client sends its sequence number (u64), the server echoes it
/// - bulk: the client sends count x size bytes; the server answers REPORT: bytes received (u64)
/// - the client closes; the server sees the end of the stream and finishes.
public struct __Name__Plugin: TransportPlugin {
    public static let descriptor = PluginDescriptor(
        name: "__name__",
        summary: "TODO: say in one line what __name__ is (generated: plain TCP workload).",
        options: [
            OptionDescriptor("noDelay", type: "bool", default: "true", help: "Disable Nagle's algorithm (TCP_NODELAY) on both sides."),
        ]
    )

    public let noDelay: Bool

    /// Reads every option through `options`: unknown keys are rejected after this returns.
    public init(options: PluginOptions) throws {
        noDelay = try options.bool("noDelay", default: true)
    }

    public init(noDelay: Bool = true) {
        self.noDelay = noDelay
    }

    public func startServer(_ cell: CellContext) async throws -> any TransportServer {
        try await __Name__Server.start(cell, noDelay: noDelay)
    }

    public func runClient(_ cell: CellContext, server: SocketAddress) async throws -> TransportMeasurement {
        let noDelay = noDelay
        // Blocking socket work runs on its own thread inside the client's namespace.
        return try await cell.client.run("__name__-client") { try __Name__Client.run(cell, server: server, noDelay: noDelay) }
    }
}

/// The client: timed connect, RTT probes, bulk phase timed until the server's report.
enum __Name__Client {
    static func run(_ cell: CellContext, server: SocketAddress, noDelay: Bool) throws -> TransportMeasurement {
        var m = TransportMeasurement()
        let s = try Socket(family: server.family, type: Int32(SOCK_STREAM.rawValue))
        cell.track(s)  // the runner shuts it down at the cell's deadline
        defer { cell.untrack(s) }
        try __Name__Wire.prepare(s, noDelay: noDelay, cell: cell)

        let t0 = MonotonicClock.now()
        try s.connect(server)
        m.connectNanos = MonotonicClock.elapsed(since: t0)

        let payload = cell.payload ?? Payload(count: 0, size: 0)
        try __Name__Wire.send(s, [UInt64(cell.rttProbes), UInt64(payload.count), UInt64(payload.size)])

        m.probesSent = 0
        for seq in 0..<cell.rttProbes {
            let t = MonotonicClock.now()
            try __Name__Wire.send(s, [UInt64(seq)])
            m.probesSent = seq + 1
            guard try __Name__Wire.receive(s, count: 1) == [UInt64(seq)] else {
                throw TransportError("__name__ client: probe \(seq) came back wrong")
            }
            m.rttNanos.append(MonotonicClock.elapsed(since: t))
        }

        if payload.count > 0 {
            let total = payload.count * payload.size
            let chunk = [UInt8](repeating: 0xA5, count: min(total, 256 << 10))
            let start = MonotonicClock.now()
            var left = total
            while left > 0 {
                let n = min(left, chunk.count)
                guard try chunk.withUnsafeBytes({ try s.sendAll(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }) else {
                    throw TransportError("__name__ client: the server closed the connection during the bulk phase")
                }
                left -= n
            }
            let received = Int(try __Name__Wire.receive(s, count: 1)[0])
            m.bulkNanos = MonotonicClock.elapsed(since: start)
            m.delivery = Delivery(sentMessages: payload.count, receivedMessages: received / payload.size,
                                  sentBytes: total, receivedBytes: received)
        }
        return m
    }
}

/// The server: one client session on a thread of its own, then it finishes.
enum __Name__Server {
    static func start(_ cell: CellContext, noDelay: Bool) async throws -> SessionServer {
        let host = cell.server.address
        // `stop()` cancels this stopper, which shuts down the sockets tracked with it.
        let stopper = CellCancellation()
        let (listener, address) = try await cell.server.run("__name__-listen") { () throws -> (Socket, SocketAddress) in
            let wanted = SocketAddress(host: host, port: 0)  // port 0: the kernel picks a free port
            let s = try Socket(family: wanted.family, type: Int32(SOCK_STREAM.rawValue))
            try s.setReuseAddress()
            try s.bind(wanted)
            try s.listen(backlog: 1)
            try cell.applyDeadline(to: s)  // accept() gives up at the cell's deadline
            return (s, try s.localAddress())
        }
        cell.track(listener, stopper)
        let task = Task {
            try await cell.server.run("__name__-server") {
                defer { cell.untrack(listener, stopper) }
                guard let conn = try listener.accept() else { throw TransportError("__name__ server: no client came before the deadline") }
                cell.track(conn, stopper)
                // Whatever happens, the client learns at once that the session is over.
                defer { conn.shutdown(); cell.untrack(conn, stopper) }
                try __Name__Wire.prepare(conn, noDelay: noDelay, cell: cell)
                try serve(conn)
            }
        }
        return SessionServer(address: address, stopper: stopper, task: task)
    }

    private static func serve(_ s: Socket) throws {
        let hello = try __Name__Wire.receive(s, count: 3)
        for _ in 0..<hello[0] {
            try __Name__Wire.send(s, try __Name__Wire.receive(s, count: 1))
        }
        let total = Int(hello[1] * hello[2])
        if total > 0 {
            var received = 0
            var buffer = [UInt8](repeating: 0, count: 256 << 10)
            while received < total {
                let n = try buffer.withUnsafeMutableBytes { p in
                    try s.receive(UnsafeMutableRawBufferPointer(rebasing: p[0..<min(p.count, total - received)]))
                }
                guard let n else { throw TransportError("__name__ server: timed out during the bulk phase") }
                if n == 0 { break }
                received += n
            }
            try __Name__Wire.send(s, [UInt64(received)])
        }
        // Wait for the client to close: the session is over when both sides are done.
        var byte = [UInt8](repeating: 0, count: 1)
        _ = try byte.withUnsafeMutableBytes { try s.receive($0) }
    }
}

/// Socket set-up and big-endian u64 messages shared by both sides.
enum __Name__Wire {
    static func prepare(_ s: Socket, noDelay: Bool, cell: CellContext) throws {
        if noDelay { try s.setOption(Int32(IPPROTO_TCP), TCP_NODELAY, Int32(1), "TCP_NODELAY") }
        // No blocking call may outlive the cell, even without cancellation.
        try cell.applyDeadline(to: s)
    }

    static func send(_ s: Socket, _ values: [UInt64]) throws {
        var bytes: [UInt8] = []
        for v in values { withUnsafeBytes(of: v.bigEndian) { bytes += $0 } }
        guard try bytes.withUnsafeBytes({ try s.sendAll($0) }) else { throw TransportError("__name__: the peer closed the connection") }
    }

    static func receive(_ s: Socket, count: Int) throws -> [UInt64] {
        var bytes = [UInt8](repeating: 0, count: count * 8)
        guard try bytes.withUnsafeMutableBytes({ try s.receiveExactly($0) }) else { throw TransportError("__name__: the peer closed the connection") }
        return (0..<count).map { i in bytes.withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self)) } }
    }
}

"""#

    static let testTemplate = #"""
import PeerBenchCore
import Testing
import __Name__Transport

/// Generated by `swift package new-transport __Name__`: the plugin runs the standard
/// workload on loopback. Keep these tests passing as you make the transport your own.
@Suite struct __Name__PluginTests {
    @Test func runsTheStandardWorkloadOnLoopback() async throws {
        let plugin = __Name__Plugin()
        let c = CellContext.loopback(payload: Payload(count: 500, size: 1_024), rttProbes: 10)
        let server = try await plugin.startServer(c)
        let m = try await plugin.runClient(c, server: server.address)
        try await server.finish()
        #expect(m.status == .ok)
        #expect(m.rttNanos.count == 10)
        #expect(m.rttNanos.allSatisfy { $0 > 0 && $0 < 1_000_000_000 })
        #expect((m.connectNanos ?? 0) > 0)
        #expect(m.delivery == Delivery(sentMessages: 500, receivedMessages: 500, sentBytes: 512_000, receivedBytes: 512_000))
        #expect((m.bulkNanos ?? 0) > 0)
    }

    @Test func unknownOptionsAreRejected() throws {
        let registry = PluginRegistry([__Name__Plugin.self])
        #expect(throws: InputError.self) {
            _ = try registry.make("__name__", options: ["noDelya": true], path: JSONPath.root.key("transports").index(0))
        }
    }
}

"""#
}
