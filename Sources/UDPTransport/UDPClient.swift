import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSockets
import PeerBenchSystem
import PeerBenchWorkloads

#if canImport(Glibc)
    import Glibc
#endif

/// The client side: HELLO handshake, echoed probes, the bulk phase, END until the
/// server's REPORT arrives, BYE.
final class UDPClient {
    /// Datagrams per sendmmsg(2) when sending back to back.
    static let batch = 64
    /// HELLO is retransmitted this often until acknowledged.
    static let helloInterval: UInt64 = 200_000_000

    let cell: CellContext
    /// The plugin's options; with parallel flows `rateMbps` is this flow's share of the rate.
    var options: UDPOptions
    let socket: Socket
    let session = UInt32.random(in: 1...UInt32.max)
    /// Tags every datagram to the server in an authenticated cell (a remote link's key).
    let tag: UDPDatagramTag?
    /// The receive buffer, or a bidir bulk phase's mailbox.
    var inbox = UDPInbox()
    var m = TransportMeasurement()
    /// The largest probe RTT (the timeouts scale with it); parallel flows take the first flow's.
    var maxRtt: UInt64 = 0
    /// The HELLO exchange's attempts and the server's probe-flow port.
    var helloExchange = UDPHelloExchange()
    /// Loaded RTT probes (option `loadedRttProbes`): their schedule and answers.
    var loaded: UDPLoadedProbes
    /// Loaded probes' sequence numbers start here, apart from the pre-bulk probes'
    /// (0..<rttProbes), so a late pre-bulk echo is never taken for a loaded one.
    static let loadedSequenceBase: UInt64 = 1 << 32
    /// DATA datagrams handed to the kernel so far (for `resent_bytes` after a resume).
    var handed = 0
    /// The keepalive (option `keepAlive`), running from HELLO_ACK to the end; nil = off.
    var keepAlive: UDPKeepAliveClock?

    let server: SocketAddress

    init(cell: CellContext, options: UDPOptions, socket: Socket, server: SocketAddress) {
        tag = cell.dataKey.map(UDPDatagramTag.init(key:))
        self.cell = cell
        self.options = options
        self.socket = socket
        self.server = server
        // Same-flow probes only on the same flow; a separate flow has its own prober.
        loaded = UDPLoadedProbes(schedule: LoadedProbeSchedule(options.loadedRttProbes?.flow == .separate ? nil : options.loadedRttProbes))
    }

    static func run(_ cell: CellContext, server: SocketAddress, options: UDPOptions) throws -> TransportMeasurement {
        let s = try UDPSocketSetup.make(family: server.family, receiveBuffer: options.receiveBufferBytes)
        cell.markServiceClass(s)
        cell.cancellation.register(s)
        defer { cell.cancellation.unregister(s) }
        do {
            try cell.applySendDeadline(to: s)
            try s.connect(server)  // UDP: fixes the peer, sends nothing
            let client = UDPClient(cell: cell, options: options, socket: s, server: server)
            return try client.workload()
        } catch {
            if cell.cancellation.isCancelled { throw TransportError("udp client cancelled at the cell deadline (\(error))") }
            throw error
        }
    }

    func header(_ type: UDPMessageType, _ sequence: UInt64, _ timestamp: UInt64 = MonotonicClock.now()) -> UDPDatagramHeader {
        UDPDatagramHeader(type: type, session: session, sequence: sequence, timestamp: timestamp)
    }

    private func workload() throws -> TransportMeasurement {
        try hello()
        keepAlive = options.keepAlive.map { UDPKeepAliveClock($0, start: MonotonicClock.now()) }
        try probes()
        switch cell.workload.kind {
        case .bulk(let direction):
            // Parallel flows whatever the count: the server waits for every flow's HELLO and BYE.
            if UDPParallelFlows.count(of: cell.workload) > 1 {
                try parallelFlows(direction, cell.payload ?? Payload(count: 0, size: 0))
            } else if let payload = cell.payload, payload.count > 0 {
                if direction == .up { try bulk(payload) } else { try download(payload, alsoUp: direction == .bidir) }
            }
        case .requestResponse:
            try transact(cell.workload)
        case .isochronous:
            try isochronous(cell.workload)
        }
        bye()
        return m
    }

    /// HELLO {count u64, size u64} until HELLO_ACK; the time is the connection set-up.
    func hello() throws {
        let count = UInt64(cell.payload?.count ?? 0)
        let size = UInt64(cell.payload?.size ?? 0)
        let start = MonotonicClock.now()
        var attempt: UInt64 = 0
        while true {
            try send(header(.hello, attempt).datagram([count, size]))
            if let ack = try waitFor(.helloAck, sequence: nil, within: Self.helloInterval) {
                helloExchange.probePort = ack.first.map { UInt16(truncatingIfNeeded: $0) }
                break
            }
            attempt += 1
        }
        m.connectNanos = MonotonicClock.elapsed(since: start)
        helloExchange.attempts = Int(attempt) + 1
    }

    /// The bulk phase: DATA at the configured pace, END until the REPORT, then the
    /// record's delivery figures and `udp` object.
    func bulk(_ payload: Payload) throws {
        let untagged = UDPDatagramHeader.size + payload.size
        let datagramSize = untagged + (tag == nil ? 0 : UDPDatagramTag.size)
        let capacity = min(Self.batch, payload.count)
        let tx = UDPBatchSender(capacity: capacity, datagramSize: datagramSize) { slot in
            header(.data, 0, 0).write(to: slot.baseAddress!)
            for j in UDPDatagramHeader.size..<slot.count { slot[j] = UInt8(truncatingIfNeeded: j) }
        }
        // The keepalive's answers are picked up between batches like loaded echoes.
        let echoes = loaded.schedule.intervalNanos == nil && keepAlive == nil ? nil : try LoadedEchoPoller(socket)
        let separate = try startSeparateProber()
        defer { if let separate { stopSeparateProber(separate) } }
        let start = MonotonicClock.now()
        let (sendNanos, report, endAttempts) = try sendUntilReport(start: start) { from in
            (
                try sendData(payload, from: from, tx: tx, capacity: capacity, untagged: untagged, echoes: echoes, start: start),
                try endUntilReport(payload)
            )
        }
        m.bulkNanos = MonotonicClock.elapsed(since: start)
        if loaded.schedule.intervalNanos != nil {
            try drainLoadedEchoes()
            m.rttLoadedNanos = loaded.rtts
        }
        if let separate {
            separate.prober.finish()
            m.rttLoadedNanos = separate.prober.rtts
        }
        record(
            report, payload: payload, datagramSize: datagramSize, sendNanos: sendNanos, endAttempts: endAttempts,
            separate: separate?.prober)
    }

    /// Every DATA datagram, in batches of up to `capacity` from `tx`, paced when the
    /// options give a rate, with loaded probes and keepalives between batches; returns
    /// the sender's own time from `start` to the last datagram handed to the kernel.
    /// From DATA `from` on (0, or where a resumed bulk phase carries on: `handed` counts
    /// what was handed to the kernel, and the pace restarts there).
    private func sendData(
        _ payload: Payload, from: Int, tx: UDPBatchSender, capacity: Int, untagged: Int, echoes: LoadedEchoPoller?,
        start: UInt64
    ) throws -> UInt64 {
        loaded.schedule.begin(at: start)
        let paceFrom = from == 0 ? start : MonotonicClock.now()
        let pacer = options.rateMbps.map { MessageSchedule(rateMbps: $0, payloadBytes: payload.size, start: paceFrom) }
        // The app's send loop: one datagram per send cost at most (CellContext.appLoop).
        let app = MessageSchedule(cell.appLoop, start: paceFrom)
        if app != nil, let loop = cell.appLoop.extra { m.extra[AppLoop.extraKey] = loop }
        var sent = from
        handed = from
        while sent < payload.count {
            if let echoes {
                try sendLoadedProbeIfDue()
                loaded.rtts += try echoes.poll(session: session) { keepAlive?.heard(at: $0) }
                try keepAliveTick()
            }
            var k = min(capacity, payload.count - sent)
            if let pacer {
                MessageSchedule.waitPrecisely(until: pacer.due(sent - from))
                // Catch up in one batch if the thread was descheduled, never run ahead.
                k = min(k, max(1, pacer.dueCount(at: MonotonicClock.now()) - (sent - from)))
            }
            if let app {
                app.wait(for: sent - from)
                k = min(k, max(1, app.dueCount(at: MonotonicClock.now()) - (sent - from)))
            }
            let now = MonotonicClock.now()
            for i in 0..<k {
                UDPDatagramHeader.writeSequence(UInt64(sent + i), timestamp: now, to: tx.slot(i))
                tag?.write(over: tx.slot(i), length: untagged)
            }
            try tx.send(socket, count: k)
            sent += k
            handed = sent
        }
        return MonotonicClock.elapsed(since: start)
    }

    /// END {sent u64, bytes u64, linger ns u64}, repeated until the REPORT arrives:
    /// END can be lost like any datagram. The linger tells the server how long to
    /// wait for stragglers when datagrams are missing. Returns the REPORT's fields and
    /// how many ENDs went out.
    private func endUntilReport(_ payload: Payload) throws -> (report: [UInt64], attempts: UInt64) {
        let linger = min(max(2 * maxRtt, 2_000_000), 500_000_000)
        var rto = linger + max(4 * maxRtt, 10_000_000)
        // The fourth field's flag asks for the receiver's span after the series; a server
        // from before it ignores the field and sends the REPORT without it.
        let flags = UDPReportSeries.endFlagReceiverSpan | (tag == nil ? 0 : UDPReportSeries.endFlagUnauthenticated)
        let end = [UInt64(payload.count), UInt64(payload.count * payload.size), linger, flags]
        var attempt: UInt64 = 0
        var report: [UInt64]?
        while report == nil {
            try send(header(.end, attempt).datagram(end))
            report = try waitForReport(within: rto)
            attempt += 1
            rto = min(rto * 2, 1_000_000_000)
        }
        return (report!, attempt)
    }

    /// The `udp` object's keys every workload has.
    func commonExtra() -> JSONObject {
        var udp = JSONObject()
        udp["hello_attempts"] = JSONValue(helloExchange.attempts)
        udp["probes_lost"] = JSONValue((m.probesSent ?? 0) - m.rttNanos.count)
        if tag != nil { udp["authenticated"] = .bool(true) }
        return udp
    }

    /// The REPORT `r` as the record's delivery, series and jitter, and the `udp` object.
    private func record(
        _ r: [UInt64], payload: Payload, datagramSize: Int, sendNanos: UInt64, endAttempts: UInt64,
        separate: UDPProbeFlowProber?
    ) {
        m.recordUpload(
            Delivery(
                sentMessages: payload.count, receivedMessages: Int(r[0]),
                sentBytes: payload.count * payload.size, receivedBytes: Int(r[1]),
                reordered: Int(r[2]), duplicated: Int(r[3])),
            series: UDPReportSeries.decode(r), receiverSpanNanos: UDPReportSeries.span(r), expected: nil, transport: "udp")
        if r[5] >= 2 { m.rfc3550JitterMs = Double(r[4]) / 1e6 }
        var udp = JSONObject()
        udp["datagram_bytes"] = JSONValue(datagramSize)
        udp["rate_mbps"] = JSONValue(options.rateMbps)
        // The sender's own pace (first to last datagram handed to the kernel), beside
        // the delivered throughput that the record's bulk duration gives.
        udp["send_seconds"] = JSONValue(Double(sendNanos) / 1e9)
        udp["hello_attempts"] = JSONValue(helloExchange.attempts)
        udp["end_attempts"] = JSONValue(endAttempts)
        udp["probes_lost"] = JSONValue((m.probesSent ?? 0) - m.rttNanos.count)
        if loaded.schedule.intervalNanos != nil {
            udp["loaded_probes_sent"] = JSONValue(loaded.schedule.sent)
            udp["loaded_probes_lost"] = JSONValue(loaded.schedule.sent - loaded.rtts.count)
        }
        if let separate {
            udp["loaded_probes_sent"] = JSONValue(separate.sent)
            udp["loaded_probes_lost"] = JSONValue(separate.sent - separate.rtts.count)
        }
        if let keepAlive { udp["keepalives_sent"] = JSONValue(Int(keepAlive.sent)) }
        udp["jitter_samples"] = JSONValue(r[5])
        udp["out_of_range"] = JSONValue(r[6])
        if tag != nil {
            udp["authenticated"] = .bool(true)
            udp["unauthenticated_dropped"] = JSONValue(UDPReportSeries.unauthenticated(r).map { Int(clamping: $0) })
        }
        m.extra["udp"] = .object(udp)
    }

    /// How long the client keeps saying BYE, and the server keeps its session after the
    /// REPORT while it hears nothing: long enough to outlast a fade of several seconds.
    static let goodbyeWindow: UInt64 = 10_000_000_000

    /// BYE until BYE_ACK, backing off like END, for at most `goodbyeWindow`: the
    /// measurement is complete, but the server waits for this (or that window) to end.
    func bye() {
        var wait = max(4 * maxRtt, 20_000_000)
        let start = MonotonicClock.now()
        var attempt: UInt64 = 0
        while MonotonicClock.elapsed(since: start) < Self.goodbyeWindow {
            do {
                try send(header(.bye, attempt).datagram())
                if try waitFor(.byeAck, sequence: nil, within: wait) != nil { return }
            } catch {
                return  // server gone (ICMP) or deadline: nothing left to measure
            }
            attempt += 1
            wait = min(wait * 2, 1_000_000_000)
        }
    }

    /// Sends a KEEPALIVE if one is due; throws once the server has been silent for the
    /// keepalive's timeout: the peer is lost and the cell ends here, as a TCP connection
    /// ends at its user timeout (a scenario cell is then `ok` by docs/RECORDS.md's rule).
    private func keepAliveTick() throws {
        guard var k = keepAlive else { return }
        let now = MonotonicClock.now()
        if k.isLost(now: now) {
            let silent = Double(now - k.lastHeard) / 1e6
            throw UDPPeerLost(
                description: "udp client: peer lost: nothing from the server for \(Int(silent)) ms "
                    + "(keepAlive \(options.keepAlive!.intervalMs) ms x \(options.keepAlive!.missed))")
        }
        if let seq = k.takeDue(now: now) {
            keepAlive = k
            try send(header(.keepAlive, seq, now).datagram())
        }
    }

    func send(_ datagram: [UInt8]) throws {
        let bytes = tag?.tagged(datagram) ?? datagram
        guard try bytes.withUnsafeBytes({ try socket.send($0) }) != nil else {
            throw TransportError("timed out sending to the udp server (cell deadline)")
        }
    }

    /// Waits up to `within` (and never past the cell's deadline) for a datagram of this
    /// session with `type` (and `sequence`, if given); returns its u64 fields, or nil
    /// when the wait is over. Other datagrams (late echoes, duplicates) are skipped.
    func waitFor(_ type: UDPMessageType, sequence: UInt64?, within: UInt64) throws -> [UInt64]? {
        let until = MonotonicClock.now() + within
        while true {
            if cell.remainingNanos == 0 { throw TransportError("udp client: cell deadline passed waiting for \(type)") }
            try keepAliveTick()
            let now = MonotonicClock.now()
            guard now < until else { return nil }
            let keepAliveWait = keepAlive.map { max($0.nanosUntilNext(now: now), 1_000_000) } ?? .max
            let wait = min(until - now, cell.remainingNanos, keepAliveWait)
            let n: Int?
            if let mailbox = inbox.mailbox {
                // bidir: the down receiver reads the socket and hands over the rest.
                guard let d = mailbox.pop(within: wait) else { continue }
                let k = min(d.count, inbox.buffer.count)
                inbox.buffer.replaceSubrange(0..<k, with: d[0..<k])
                n = k
            } else {
                n = try receiveOnce(waiting: wait)
            }
            guard let n else { continue }
            let fields: [UInt64]? = inbox.buffer.withUnsafeBytes { p in
                let d = UnsafeRawBufferPointer(rebasing: p[0..<n])
                guard let h = UDPDatagramHeader(d), h.session == session else { return nil }
                keepAlive?.heard(at: MonotonicClock.now())
                if h.type == .echo, h.sequence >= Self.loadedSequenceBase, loaded.schedule.intervalNanos != nil {
                    loaded.rtts.append(MonotonicClock.elapsed(since: h.timestamp))
                    return nil
                }
                guard h.type == type, sequence == nil || h.sequence == sequence else { return nil }
                return (0..<((n - UDPDatagramHeader.size) / 8)).map { d.field($0) }
            }
            if let fields { return fields }
            if loaded.draining && loaded.rtts.count >= loaded.schedule.sent { return nil }
        }
    }
}
