#if canImport(Glibc)
import Glibc
#endif
import PeerBenchCore

/// The client side: the standard workload (Core's `StreamWorkloadClient`) over one
/// TCP connection, with TCP's HELLO before it and TCP_INFO after the bulk phase.
enum TCPClient {
    static func run(_ cell: CellContext, server: SocketAddress, options: TCPOptions) throws -> TransportMeasurement {
        var m = TransportMeasurement()
        let s = try Socket(family: server.family, type: Int32(SOCK_STREAM.rawValue))
        cell.track(s)
        defer { cell.untrack(s) }
        do {
            try options.apply(to: s)
            try cell.applyDeadline(to: s)
            let t0 = MonotonicClock.now()
            try s.connect(server)
            m.connectNanos = MonotonicClock.elapsed(since: t0)
            let workload = StreamWorkloadClient("tcp", over: s)
            try workload.greet(TCPHello.greeting)
            try workload.probe(count: cell.rttProbes, into: &m)
            if let payload = cell.payload, payload.count > 0 {
                try workload.bulk(payload, loadedProbes: options.loadedRttProbes, into: &m)
                if let info = TCPInfo.read(s) { m.extra["tcp"] = info }
            }
            try workload.goodbye()
        } catch {
            if cell.cancellation.isCancelled { throw TransportError("tcp client cancelled at the cell deadline (\(error))") }
            throw error
        }
        return m
    }
}
