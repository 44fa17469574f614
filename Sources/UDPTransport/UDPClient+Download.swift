import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchWorkloads

/// Bulk `down` and `bidir` over udp (docs/protocol/udp.md, "Download"): PULL has the
/// server send the payload's count x size as DATA; with `bidir` the client sends its own
/// upload (DATA, END until REPORT) at the same time.
extension UDPClient {
    func download(_ payload: Payload, alsoUp: Bool) throws {
        // From before the receiver's thread sends the PULL: on loopback its first DATA
        // can arrive before this thread runs again.
        let start = MonotonicClock.now()
        // Repeat PULL after max(4 x the largest probe RTT, 50 ms) without DATA or PUSHED.
        let receiver = try UDPDownReceiver(
            socket: socket, session: session, tag: tag, cell: cell, count: payload.count, size: payload.size,
            linger: min(max(2 * maxRtt, 2_000_000), 500_000_000),
            baseWait: max(4 * maxRtt, 50_000_000), forwarding: alsoUp)
        if alsoUp {
            inbox.mailbox = receiver.mailbox
            defer { inbox.mailbox = nil }
            do { try bulk(payload) } catch {
                receiver.stop()
                throw error
            }
        }
        let down = receiver.result()
        receiver.stop()
        if let failure = down.failure { throw TransportError(failure) }
        let stats = down.stats
        let pushed = down.pushed ?? (payload.count, payload.count * payload.size)
        // PULL sent to the last DATA read (its kernel stamp); PUSHED's arrival without any.
        let flow = stats.count.flow(
            sent: (pushed.sent, pushed.bytes), since: start, endedAt: down.pushedAt, reordered: stats.reordered, duplicated: stats.duplicated)
        let up = alsoUp ? m.delivery.map { DirectionalDelivery.Flow(delivery: $0, nanos: m.bulkNanos ?? 0) } : nil
        // A udp bulk that loses datagrams stays `ok`: its loss is the measurement.
        m.recordDirections(up: up, down: flow, receiverSpanNanos: alsoUp ? nil : stats.spanNanos, expected: nil, transport: "udp")
        var udp = alsoUp ? (m.extra["udp"]?.objectValue ?? commonExtra()) : commonExtra()
        if !alsoUp {
            if stats.jitter.samples >= 2 { m.rfc3550JitterMs = stats.jitter.jitterNanos / 1e6 }
            udp["datagram_bytes"] = JSONValue(UDPDatagramHeader.size + payload.size)
            udp["rate_mbps"] = JSONValue(options.rateMbps)
        }
        udp["pull_attempts"] = JSONValue(down.pulls)
        udp["down_jitter_ms"] = JSONValue(stats.jitter.samples >= 2 ? stats.jitter.jitterNanos / 1e6 : nil)
        udp["down_out_of_range"] = JSONValue(stats.outOfRange)
        m.extra["udp"] = .object(udp)
    }
}
