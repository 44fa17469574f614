import PeerBenchPlugin
import PeerBenchSockets
import PeerBenchStreams
import PeerBenchSystem

/// The client side: the standard workload (Core's `StreamWorkloadClient`) over one
/// TCP connection, with TCP's HELLO before it and TCP_INFO after the bulk phase. With
/// `reconnect`, over as many connections as the bulk phase needs (`StreamResumableBulk`).
enum TCPClient {
    static func run(_ cell: CellContext, server: SocketAddress, options: TCPOptions) throws -> TransportMeasurement {
        var m = TransportMeasurement()
        try cell.withStreamConnection("tcp", to: server, configure: options.apply) { s, connectNanos in
            m.connectNanos = connectNanos
            let workload = StreamWorkloadClient("tcp", over: options.stream(over: s), appLoop: cell.appLoop)
            try workload.greet(TCPHello.greeting)
            let token = try options.reconnect.map { _ in try workload.requestResumption() }
            try workload.probe(count: cell.rttProbes, method: cell.rttMethod, spacingNanos: cell.rttProbeSpacingNanos, into: &m)
            let first = (socket: s, workload: workload)
            if cell.workload.streams > 1, let payload = cell.payload {
                try StreamParallelFlows.run(
                    cell.workload, payload: payload, first: workload,
                    open: {
                        let flow = try reconnect(cell, server: server, options: options, timeoutNanos: cell.remainingNanos)
                        try flow.workload.greet(TCPHello.greeting)
                        return flow
                    }, into: &m)
            } else if !cell.workload.isUpload {
                try workload.run(cell.workload, payload: cell.payload, into: &m)
                if let info = TCPInfo.read(s) { m.extra["tcp"] = info }
            } else if let payload = cell.payload, payload.count > 0 {
                if let policy = options.reconnect, let token {
                    let resumable = StreamResumableBulk(
                        policy: policy, token: token, deadline: cell.deadline, greeting: TCPHello.greeting,
                        cancelled: { cell.cancellation.isCancelled },
                        connect: { try reconnect(cell, server: server, options: options, timeoutNanos: $0) })
                    if let remade = try resumable.run(payload, on: workload, into: &m) {
                        return try finish((remade.socket, remade.workload), into: &m, then: remade.close)
                    }
                } else {
                    try withProbeFlow(cell, server: server, options: options) { probeFlow in
                        try workload.bulk(
                            payload, loadedProbes: options.loadedRttProbes, probeFlow: probeFlow,
                            writes: BulkWrites(cell.rttMethod), into: &m)
                    }
                }
                if let info = TCPInfo.read(s) { m.extra["tcp"] = info }
            }
            try finish(first, into: &m) {}
        }
        return m
    }

    /// The controller in force (the record's `congestion_control`), TCP_INFO after a
    /// re-made bulk connection, GOODBYE on the connection the workload ended on.
    private static func finish(
        _ last: (socket: Socket, workload: StreamWorkloadClient), into m: inout TransportMeasurement,
        then close: () -> Void
    ) throws {
        defer { close() }
        if m.reconnects?.isEmpty == false, let info = TCPInfo.read(last.socket) { m.extra["tcp"] = info }
        m.congestionControl = last.socket.congestionControl()
        try last.workload.goodbye()
    }

    /// A re-made connection for `StreamResumableBulk`: set up like the first, connected
    /// within `timeoutNanos`; the HELLO goes with the RESUME.
    static func reconnect(_ cell: CellContext, server: SocketAddress, options: TCPOptions, timeoutNanos: UInt64) throws -> StreamConnection {
        let s = try cell.openStreamConnection(to: server, timeoutNanos: timeoutNanos, configure: options.apply)
        return StreamConnection(workload: StreamWorkloadClient("tcp", over: options.stream(over: s)), socket: s, connectedAt: MonotonicClock.now()) {
            cell.closeStreamConnection(s)
        }
    }

    /// With `loadedRttProbes.flow` `separate`: a second connection to the server, set
    /// up like the first and greeted, for the probes only (docs/protocol/tcp.md); else nil.
    static func withProbeFlow(
        _ cell: CellContext, server: SocketAddress, options: TCPOptions,
        _ body: (StreamWorkloadClient?) throws -> Void
    ) throws {
        guard options.loadedRttProbes?.flow == .separate else { return try body(nil) }
        try cell.withStreamConnection("tcp", to: server, configure: options.apply) { s, _ in
            let flow = StreamWorkloadClient("tcp", over: options.stream(over: s))
            try flow.greet(TCPHello.greeting)
            try body(flow)
        }
    }
}
