import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSockets
import PeerBenchSystem

/// A bulk workload's `streams` over udp (docs/protocol/udp.md, "Parallel flows"): N
/// flows, each a socket pair of its own (own client and server ports, so N 4-tuples
/// the network sees as separate flows) running the one-flow bulk at once; the
/// payload's messages dealt as tcp deals them and the plugin's `rateMbps` shared, each
/// flow paced at rate / N, so the cell offers the same load whatever the number of flows.
enum UDPParallelFlows {
    /// The server hello's key: the ports of flows 2 … N (flow 1 is the server's address).
    static let portsKey = "flow_ports"

    /// How many flows `workload` runs: its `streams` for a bulk, else 1.
    static func count(of workload: WorkloadSpec) -> Int {
        if case .bulk = workload.kind { return max(1, workload.streams) }
        return 1
    }

    /// The ports of flows 2 … N from the server's hello; a clear error when it has not
    /// as many (a server from before parallel flows, or another cell's).
    static func ports(_ hello: JSONObject, flows n: Int) throws -> [UInt16] {
        let ports = (hello[portsKey]?.arrayValue ?? []).compactMap { $0.intValue }.filter { (1...65_535).contains($0) }.map { UInt16($0) }
        guard ports.count == n - 1 else {
            throw TransportError(
                "udp: \(n) parallel flows need \(n - 1) more server ports in the server's hello (\"\(portsKey)\"); it gave \(ports.count)")
        }
        return ports
    }

    /// The server of a cell with parallel flows: its first flow's address, and the
    /// other flows' ports in its hello.
    struct Server: TransportServer {
        let server: SessionServer
        let ports: [Int]

        var address: SocketAddress { server.address }
        var hello: JSONObject { JSONObject([UDPParallelFlows.portsKey: .array(ports.map { JSONValue($0) })]) }
        func finish() async throws { try await server.finish() }
        func stop() { server.stop() }
    }
}
