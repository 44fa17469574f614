import Foundation
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem
import Synchronization

/// A bulk workload over `streams` parallel flows of a stream transport (docs/WORKLOADS.md;
/// iperf3's `-P`): one connection each, all at once, the payload's messages dealt among
/// them (the first `count % streams` flows carry one more), so the cell moves the same
/// bytes whatever the number of flows. Each flow runs the one-flow bulk (up, down or
/// bidir) on a thread of its own; the measurement is their sum, with each flow's
/// throughput under `extra.streams`.
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
        combine(each, into: &m)
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

    /// The flows' sum: counts added, the longest time, each direction the same way; a
    /// flow not `ok` makes the sum `partial`; each flow's throughput under `extra.streams`.
    /// Public for transports whose parallel flows are not connections (quic's streams, udp's flows).
    public static func combine(_ each: [TransportMeasurement], into m: inout TransportMeasurement) {
        func sum(_ ds: [Delivery]) -> Delivery? { ds.first.map { ds.dropFirst().reduce($0, +) } }
        m.delivery = sum(each.compactMap(\.delivery))
        m.bulkNanos = each.compactMap(\.bulkNanos).max()
        func flow(_ pick: (DirectionalDelivery) -> DirectionalDelivery.Flow?) -> DirectionalDelivery.Flow? {
            let flows = each.compactMap { $0.byDirection.flatMap(pick) }
            guard let d = sum(flows.map(\.delivery)) else { return nil }
            return DirectionalDelivery.Flow(delivery: d, nanos: flows.map(\.nanos).max() ?? 0)
        }
        if each.contains(where: { $0.byDirection != nil }) {
            m.byDirection = DirectionalDelivery(up: flow(\.up), down: flow(\.down))
        }
        let errors = each.compactMap(\.error)
        if each.contains(where: { $0.status != .ok }) {
            m.status = .partial
            m.error = errors.joined(separator: "; ")
        }
        // Several receivers: no single span or series.
        m.receiverSpanNanos = nil
        m.extra["streams"] = .array(
            each.map { mi in
                let mbps = mi.delivery.flatMap { d in mi.bulkNanos.map { $0 > 0 ? Double(d.receivedBytes) * 8 / Double($0) * 1e3 : 0 } }
                return ["throughput_mbps": mbps.map { JSONValue($0) } ?? .null]
            })
    }
}
