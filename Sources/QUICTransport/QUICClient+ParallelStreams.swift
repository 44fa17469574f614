import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchWorkloads

/// A bulk workload over `streams` parallel streams of the cell's one connection
/// (docs/protocol/quic.md section 4c, "Parallel streams"; tcp's are connections): the
/// payload's messages dealt among N flows (the first `count % N` carry one more), all
/// handed to QUIC at once and sent in turns by the stream scheduler. Up: a flow stream
/// each (FLOW(i), its DATA, FIN), answered by the server's FLOW_REPORT. Down: a pull
/// stream each (PULL). Bidir: both, flow i being flow stream i and pull stream i.
extension QUICClient {
    func parallelBulk(
        _ direction: WorkloadSpec.Direction, streams n: Int, payload: Payload, seed: UInt64,
        on connection: QUICConnection, into m: inout TransportMeasurement
    ) throws {
        let streams = workloadStreams
        let shares = (0..<n).map { payload.share(flow: $0, of: n).count }
        let up = direction != .down, down = direction != .up
        var pullIDs = [Int64?](repeating: nil, count: n)
        let start = MonotonicClock.now()
        // A flow with no message (count < N) opens no stream: its entry has no throughput, as tcp's.
        if down {
            for i in 0..<n where shares[i] > 0 {
                let id = try openStream(connection, for: "opening pull stream \(i + 1)")
                streams.expectPull(on: id)
                let s = connection.sender(id)
                s.append(copying: FrameEncoder.encode(.pull(count: UInt64(shares[i]), size: UInt64(payload.size))))
                s.finish()
                pullIDs[i] = id
            }
        }
        var flowsUp = 0
        if up {
            let block = MessageBlock(size: payload.size, seed: seed)
            streams.keep(block)
            for i in 0..<n where shares[i] > 0 {
                let id = try openStream(connection, for: "opening flow stream \(i + 1)")
                streams.expectFlowReport(on: id, flow: i)
                let s = connection.sender(id)
                s.sharesFairly = true
                s.append(copying: FrameEncoder.encode(.flow(UInt64(i))))
                s.append(borrowing: block.region, repeats: UInt64(shares[i]))
                s.finish()
                flowsUp += 1
            }
        }
        try pump("parallel streams") { streams.pullEnded && streams.flowReports.count == flowsUp }
        // More than was sent is the server's error, not a measurement.
        for (i, r) in streams.flowReports where r.report.messages > UInt64(shares[i]) || r.report.bytes > UInt64(shares[i] * payload.size) {
            throw QUICFailure.protocolViolation(
                "FLOW_REPORT of flow \(i + 1) counts \(r.report.messages) messages, \(r.report.bytes) bytes; \(shares[i]) of \(payload.size) B were sent"
            )
        }
        let each = (0..<n).map { i in
            flowMeasurement(i, share: shares[i], size: payload.size, direction: direction, pull: pullIDs[i], start: start)
        }
        m.recordParallelFlows(each)
        m.extra["streams"] = .array(
            zip(m.extra["streams"]?.arrayValue ?? [], timings(flows: n, pulls: pullIDs, start: start)).map {
                var entry = $0.objectValue ?? JSONObject()
                for member in $1 { entry[member.key] = member.value }
                return .object(entry)
            })
    }

    /// Flow `i`'s measurement, as tcp's flow connection would report it: up timed from
    /// the start to its FLOW_REPORT, down to its last whole message; `partial` when a
    /// message is missing.
    private func flowMeasurement(
        _ i: Int, share: Int, size: Int, direction: WorkloadSpec.Direction, pull: Int64?,
        start: UInt64
    ) -> TransportMeasurement {
        var mi = TransportMeasurement()
        guard share > 0 else { return mi }
        let streams = workloadStreams
        func sent(received messages: Int, bytes: Int) -> Delivery {
            Delivery(sentMessages: share, receivedMessages: messages, sentBytes: share * size, receivedBytes: bytes)
        }
        let upFlow =
            direction == .down
            ? nil
            : streams.flowReports[i].map {
                DirectionalDelivery.Flow(
                    delivery: sent(received: Int(clamping: $0.report.messages), bytes: Int(clamping: $0.report.bytes)),
                    nanos: $0.at - start)
            }
        let downFlow = pull.flatMap { streams.pulls[$0] }.map { $0.received.flow(sent: (share, share * size), since: start, endedAt: start) }
        if direction == .up {
            mi.delivery = upFlow?.delivery
            mi.bulkNanos = upFlow?.nanos
        } else {
            let flows = DirectionalDelivery(up: upFlow, down: downFlow)
            mi.byDirection = flows
            mi.delivery = flows.total?.delivery
            mi.bulkNanos = flows.total?.nanos
        }
        for (way, flow) in [("up", upFlow), ("down", downFlow)] {
            guard let flow, flow.delivery.receivedMessages < share else { continue }
            mi.status = .partial
            mi.error = [mi.error, "quic stream flow \(i + 1): \(flow.delivery.receivedMessages) of \(share) messages arrived \(way)"]
                .compactMap { $0 }.joined(separator: "; ")
        }
        return mi
    }

    /// When each flow's bytes arrived, so the record shows the flows ran at once: up, the
    /// first and last body byte on the server's clock (FLOW_REPORT), in ms after the first
    /// body byte of any flow; down, the first and last whole message on this side, in ms
    /// after the PULLs were handed to QUIC.
    private func timings(flows n: Int, pulls: [Int64?], start: UInt64) -> [JSONObject] {
        let streams = workloadStreams
        let reports = streams.flowReports.mapValues(\.report)
        let origin = reports.values.filter { $0.bytes > 0 }.map(\.firstByteNanos).min() ?? 0
        func ms(_ t: UInt64, from o: UInt64) -> JSONValue { .number(Double(t > o ? t - o : 0) / 1e6) }
        return (0..<n).map { i in
            var o = JSONObject()
            if let r = reports[i], r.bytes > 0 {
                o["up_first_ms"] = ms(r.firstByteNanos, from: origin)
                o["up_last_ms"] = ms(r.lastByteNanos, from: origin)
            }
            if let p = pulls[i].flatMap({ streams.pulls[$0]?.received }), let f = p.firstMessageAt, let l = p.lastMessageAt {
                o["down_first_ms"] = ms(f, from: start)
                o["down_last_ms"] = ms(l, from: start)
            }
            return o
        }
    }
}
