import Foundation
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSockets
import PeerBenchSystem
import PeerBenchWorkloads
import Synchronization

/// A bulk over parallel flows (`UDPParallelFlows`; docs/protocol/udp.md, "Parallel
/// flows"): this client is flow 1 (its HELLO and probes done); flows 2 … N are clients
/// of their own, each with its own socket to its own server port, on threads of their
/// own. Every flow says HELLO first; then all run the one-flow bulk (up, down, bidir)
/// at once, each paced at rate / N; the record is their sum (`TransportMeasurement.recordParallelFlows`).
extension UDPClient {
    /// One flow's outcome: its measurement, its client (source) port, when its bulk began.
    struct FlowResult: Sendable {
        var m: TransportMeasurement
        var port: UInt16
        var startedAt: UInt64
    }

    func parallelFlows(_ direction: WorkloadSpec.Direction, _ payload: Payload) throws {
        let n = UDPParallelFlows.count(of: cell.workload)
        let ports = try UDPParallelFlows.ports(cell.serverHello, flows: n)
        options.rateMbps = options.rateMbps.map { $0 / Double(n) }
        let results = Mutex([Result<FlowResult, any Error>?](repeating: nil, count: n))
        let ready = DispatchSemaphore(value: 0), go = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        let (cell, options, host, maxRtt) = (cell, options, server.host, maxRtt)
        for i in 1..<n {
            let share = payload.share(flow: i, of: n)
            let address = SocketAddress(host: host, port: ports[i - 1])
            CPUAccount.startThread("udp flow \(i + 1)") {
                let r = Result {
                    try Self.flow(
                        cell: cell, options: options, server: address, maxRtt: maxRtt, share: share, direction: direction,
                        ready: ready, go: go)
                }
                results.withLock { $0[i] = r }
                done.signal()
            }
        }
        // Every flow has its session (HELLO answered, or failed): all start at once.
        for _ in 1..<n { ready.wait() }
        for _ in 1..<n { go.signal() }
        let mine = Result<FlowResult, any Error> {
            let startedAt = MonotonicClock.now()
            try run(direction, share: payload.share(flow: 0, of: n))
            return FlowResult(m: m, port: try socket.localAddress().port, startedAt: startedAt)
        }
        results.withLock { $0[0] = mine }
        for _ in 1..<n { done.wait() }
        let each = try results.withLock { $0 }.map { try $0!.get() }
        m.recordParallelFlows(each.map(\.m))
        // Several receivers: no one series or jitter stands for the cell.
        m.bulkSeries = nil
        m.rfc3550JitterMs = nil
        let origin = each.map(\.startedAt).min() ?? 0
        m.extra["streams"] = .array(
            zip(m.extra["streams"]?.arrayValue ?? [], zip(each, [server.port] + ports)).map { entry, flow in
                var o = entry.objectValue ?? JSONObject()
                let (f, serverPort) = flow
                o["source_port"] = JSONValue(Int(f.port))
                o["server_port"] = JSONValue(Int(serverPort))
                o["loss_ratio"] = f.m.delivery.map { JSONValue($0.lossRatio) } ?? .null
                // This side's clock: when each flow's bulk began and ended, in ms after the first began.
                o["started_ms"] = JSONValue(Double(f.startedAt - origin) / 1e6)
                o["ended_ms"] = f.m.bulkNanos.map { JSONValue(Double(f.startedAt - origin + $0) / 1e6) } ?? .null
                return .object(o)
            })
        var udp = m.extra["udp"]?.objectValue ?? commonExtra()
        udp["flow_rate_mbps"] = JSONValue(options.rateMbps)
        m.extra["udp"] = .object(udp)
    }

    /// The one-flow bulk of `direction` with `share` (nothing for an empty share).
    private func run(_ direction: WorkloadSpec.Direction, share: Payload) throws {
        guard share.count > 0 else { return }
        if direction == .up { try bulk(share) } else { try download(share, alsoUp: direction == .bidir) }
    }

    /// Flow 2 … N: its own socket and session (HELLO), `ready` once it has one (or failed),
    /// then, at `go`, its bulk and BYE.
    private static func flow(
        cell: CellContext, options: UDPOptions, server: SocketAddress, maxRtt: UInt64, share: Payload,
        direction: WorkloadSpec.Direction, ready: DispatchSemaphore, go: DispatchSemaphore
    ) throws -> FlowResult {
        var signalled = false
        defer { if !signalled { ready.signal() } }
        let s = try UDPSocketSetup.make(family: server.family, receiveBuffer: options.receiveBufferBytes)
        cell.markServiceClass(s)
        cell.cancellation.register(s)
        defer {
            cell.cancellation.unregister(s)
            s.close()
        }
        try cell.applySendDeadline(to: s)
        try s.connect(server)
        let client = UDPClient(cell: cell, options: options, socket: s, server: server)
        client.maxRtt = maxRtt
        try client.hello()
        signalled = true
        ready.signal()
        go.wait()
        let startedAt = MonotonicClock.now()
        try client.run(direction, share: share)
        client.bye()
        return FlowResult(m: client.m, port: try s.localAddress().port, startedAt: startedAt)
    }
}
