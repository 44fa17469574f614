import PeerBenchPlugin

/// The client side: the standard workload (Core's `StreamWorkloadClient`) over one
/// TCP connection, with TCP's HELLO before it and TCP_INFO after the bulk phase.
enum TCPClient {
    static func run(_ cell: CellContext, server: SocketAddress, options: TCPOptions) throws -> TransportMeasurement {
        var m = TransportMeasurement()
        try cell.withStreamConnection("tcp", to: server, configure: options.apply) { s, connectNanos in
            m.connectNanos = connectNanos
            let workload = StreamWorkloadClient("tcp", over: s)
            try workload.greet(TCPHello.greeting)
            try workload.probe(count: cell.rttProbes, method: cell.rttMethod, spacingNanos: cell.rttProbeSpacingNanos, into: &m)
            if let payload = cell.payload, payload.count > 0 {
                try withProbeFlow(cell, server: server, options: options) { probeFlow in
                    try workload.bulk(payload, loadedProbes: options.loadedRttProbes, probeFlow: probeFlow, into: &m)
                }
                if let info = TCPInfo.read(s) { m.extra["tcp"] = info }
            }
            // The controller in force, set or the host's default (the record's `congestion_control`).
            m.congestionControl = s.congestionControl()
            try workload.goodbye()
        }
        return m
    }

    /// With `loadedRttProbes.flow` `separate`: a second connection to the server, set
    /// up like the first and greeted, for the probes only (docs/protocol/tcp.md); else nil.
    static func withProbeFlow(_ cell: CellContext, server: SocketAddress, options: TCPOptions,
                              _ body: (StreamWorkloadClient?) throws -> Void) throws {
        guard options.loadedRttProbes?.flow == .separate else { return try body(nil) }
        try cell.withStreamConnection("tcp", to: server, configure: options.apply) { s, _ in
            let flow = StreamWorkloadClient("tcp", over: s)
            try flow.greet(TCPHello.greeting)
            try body(flow)
        }
    }
}
