import Foundation
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchWorkloads
import Synchronization

/// A bulk workload over `streams` parallel flows of a stream transport (docs/WORKLOADS.md;
/// iperf3's `-P`): one connection each, all at once, the payload's messages dealt among
/// them (the first `count % streams` flows carry one more), so the cell moves the same
/// bytes whatever the number of flows. Each flow runs the one-flow bulk (up, down or
/// bidir) on a thread of its own; the measurement is their sum, with each flow's
/// throughput under `extra.streams` (`TransportMeasurement.recordParallelFlows`).
public enum StreamParallelFlows {
    /// Runs `direction` on every flow of `flows` (already connected and greeted) and
    /// adds the result to `m`. A flow that fails shuts the others down; the first error is thrown.
    public static func run(
        _ direction: WorkloadSpec.Direction, payload: Payload, on flows: [StreamWorkloadClient],
        into m: inout TransportMeasurement
    ) throws {
        let n = flows.count
        let results = Mutex([Result<TransportMeasurement, any Error>?](repeating: nil, count: n))
        let done = DispatchSemaphore(value: 0)
        let all = flows.map(HelperConnection.init)
        for (i, flow) in flows.enumerated() {
            let lent = HelperConnection(client: flow)
            let share = payload.share(flow: i, of: n)
            CPUAccount.startThread("\(flow.transport) flow \(i + 1)") {
                let result = Result<TransportMeasurement, any Error> {
                    var mi = TransportMeasurement()
                    if share.count > 0 {
                        try lent.client.run(WorkloadSpec(name: "flow", kind: .bulk(direction: direction), json: nil), payload: share, into: &mi)
                    }
                    return mi
                }
                // A failed flow ends the others' blocked reads and writes at once.
                if case .failure = result { all.forEach { $0.client.stream.shutdown() } }
                results.withLock { $0[i] = result }
                done.signal()
            }
        }
        for _ in 0..<n { done.wait() }
        let each = try results.withLock { $0 }.map { try $0!.get() }
        m.recordParallelFlows(each)
    }

    /// A bulk `workload` with `streams` > 1 on `first` (the cell's connection, probes
    /// done) and `streams - 1` more that `open` makes (connected, greeted); each extra
    /// flow says GOODBYE and is closed afterwards, whatever happened.
    public static func run(
        _ workload: WorkloadSpec, payload: Payload, first: StreamWorkloadClient,
        open: () throws -> StreamConnection, into m: inout TransportMeasurement
    ) throws {
        guard case .bulk(let direction) = workload.kind else { return }
        var others: [StreamConnection] = []
        defer { others.forEach { $0.close() } }
        for _ in 1..<workload.streams { others.append(try open()) }
        try run(direction, payload: payload, on: [first] + others.map(\.workload), into: &m)
        for o in others { try o.workload.goodbye() }
    }
}
