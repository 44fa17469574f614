import PeerBenchJSON
public import PeerBenchPlugin

/// How a bulk workload's figures reach the record (docs/WORKLOADS.md, docs/RECORDS.md),
/// the same for every transport: the transport counts what arrived, these say what it
/// means. With `expected`, a transport that retransmits (tcp, tls, quic) makes a
/// direction that fell short of the payload `partial`: its phase did not complete.
/// udp passes nil: its loss is the measurement (`delivery.loss_ratio`), the cell stays `ok`.
extension TransportMeasurement {
    /// The upload: `delivery` as the receiver counted it, its series and span.
    public mutating func recordUpload(_ d: Delivery, series: BulkSeries?, receiverSpanNanos span: UInt64?, expected: Payload?, transport: String) {
        delivery = d
        bulkSeries = series
        receiverSpanNanos = span
        if let expected { noteShortfall(d, of: expected, way: "up", transport: transport) }
    }

    /// A bulk down or both ways: each direction's flow in `byDirection`, their total in
    /// `delivery` and `bulkNanos` (the counts summed, the longer time: they ran at once),
    /// and `receiverSpanNanos` (give nil for both ways: two receivers, no single span).
    public mutating func recordDirections(
        up: DirectionalDelivery.Flow?, down: DirectionalDelivery.Flow?, receiverSpanNanos span: UInt64?, expected: Payload?,
        transport: String
    ) {
        let flows = DirectionalDelivery(up: up, down: down)
        byDirection = flows
        if let total = flows.total {
            delivery = total.delivery
            bulkNanos = total.nanos
        }
        receiverSpanNanos = span
        guard let expected else { return }
        for (way, flow) in [("up", up), ("down", down)] {
            if let flow { noteShortfall(flow.delivery, of: expected, way: way, transport: transport) }
        }
    }

    /// `partial`, with a sentence added to `error`, when `d` received less than `expected`.
    mutating func noteShortfall(_ d: Delivery, of expected: Payload, way: String, transport: String) {
        guard d.receivedMessages < expected.count || d.receivedBytes < expected.count * expected.size else { return }
        status = .partial
        error = [error, "\(transport): \(d.receivedMessages) of \(expected.count) messages arrived \(way) (\(d.receivedBytes) bytes)"]
            .compactMap { $0 }.joined(separator: "; ")
    }

    /// A bulk over parallel flows (`WorkloadSpec.streams`): the flows' sum, counts added,
    /// the longest time, each direction the same way; a flow not `ok` makes the sum
    /// `partial`; each flow's throughput under `extra.streams` (a transport adds its own
    /// per-flow figures to those entries). Several receivers: no single span.
    public mutating func recordParallelFlows(_ each: [TransportMeasurement]) {
        func sum(_ ds: [Delivery]) -> Delivery? { ds.first.map { ds.dropFirst().reduce($0, +) } }
        delivery = sum(each.compactMap(\.delivery))
        bulkNanos = each.compactMap(\.bulkNanos).max()
        func flow(_ pick: (DirectionalDelivery) -> DirectionalDelivery.Flow?) -> DirectionalDelivery.Flow? {
            let flows = each.compactMap { $0.byDirection.flatMap(pick) }
            guard let d = sum(flows.map(\.delivery)) else { return nil }
            return DirectionalDelivery.Flow(delivery: d, nanos: flows.map(\.nanos).max() ?? 0)
        }
        if each.contains(where: { $0.byDirection != nil }) {
            byDirection = DirectionalDelivery(up: flow(\.up), down: flow(\.down))
        }
        if each.contains(where: { $0.status != .ok }) {
            status = .partial
            error = each.compactMap(\.error).joined(separator: "; ")
        }
        receiverSpanNanos = nil
        extra["streams"] = .array(
            each.map { mi in
                let mbps = mi.delivery.flatMap { d in mi.bulkNanos.map { $0 > 0 ? Double(d.receivedBytes) * 8 / Double($0) * 1e3 : 0 } }
                return ["throughput_mbps": mbps.map { JSONValue($0) } ?? .null]
            })
    }

    /// The isochronous workload: `frames` from what the peer reported of this side's
    /// frames (`up`) and what this side saw of the peer's (`down`), one report when both
    /// ran; `partial` when a frame never arrived (a late one is counted, not missing).
    public mutating func recordFrames(up: FrameReport?, down: FrameReport?, transport: String) {
        let report = up.map { u in down.map { u + $0 } ?? u } ?? down
        frames = report
        if let r = report, r.received < r.sent {
            status = .partial
            error = "\(transport): \(r.received) of \(r.sent) frames arrived"
        }
    }
}
