import CLinkEmulation
import Dispatch
import Foundation
public import PeerBenchPlugin
public import PeerBenchSystem
import PeerBenchTestbed
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The userspace link emulator: moves IP packets between two TUN devices, one
/// dedicated thread per direction, applying queue, rate, channel schedule, delay,
/// jitter and loss. Up = client to server.
///
/// Every random decision comes from generators seeded with the cell's seed, so the
/// same seed gives the same loss pattern and delays for the same packet sequence.
public final class Emulator: Sendable {
    private let up: EmulatorDirectionHandle
    private let down: EmulatorDirectionHandle
    private let stopFd: Int32
    private let finished = DispatchSemaphore(value: 0)
    private let running = Mutex(false)

    /// An emulator between `clientFd` and `serverFd` (vnet-header TUN fds, non-blocking).
    public init(clientFd: Int32, serverFd: Int32, parameters: EmulatorParameters, seed: UInt64) throws {
        stopFd = try syscall("eventfd") { pbl_eventfd() }
        let start = MonotonicClock.now()
        up = EmulatorDirectionHandle(
            EmulatorDirection(
                name: "up", input: clientFd, output: serverFd, parameters: parameters,
                seed: seed, stream: 0, start: start))
        down = EmulatorDirectionHandle(
            EmulatorDirection(
                name: "down", input: serverFd, output: clientFd, parameters: parameters,
                seed: seed, stream: 1, start: start))
    }

    deinit {
        stop()
        close(stopFd)
    }

    /// Starts both direction threads.
    public func start() {
        running.withLock { $0 = true }
        for direction in [up, down] {
            let stopFd = self.stopFd, finished = self.finished
            let thread = Thread {
                // From here on the direction's state belongs to this thread alone.
                direction.takeLoop()?.run(stopFd: stopFd)
                finished.signal()
            }
            thread.name = "pb-link-\(direction.name)"
            thread.qualityOfService = .userInteractive
            thread.start()
        }
    }

    /// Stops both threads and waits for them. Idempotent.
    public func stop() {
        let wasRunning = running.withLock { r in
            defer { r = false }
            return r
        }
        guard wasRunning else { return }
        _ = pbl_eventfd_signal(stopFd)
        finished.wait()
        finished.wait()
    }

    /// Packets, bytes and drops each way since the emulator was created.
    public func counters() -> LinkCounters {
        LinkCounters(up: up.published.counters(), down: down.published.counters())
    }

    /// Delivery lateness over both directions since the emulator was created.
    public func schedulingError() -> SchedulingError {
        var e = up.published.schedulingError()
        e.add(down.published.schedulingError())
        return e
    }

    /// The jitter each direction planned for its first delivered packets (at most
    /// `DirectionFigures.jitterPlanLimit`), nanoseconds added to the link delay, in
    /// the order the packets went on the air: the seeded draw, floored so that no
    /// packet leaves before its departure, before order keeping holds it behind its
    /// predecessor. What the emulator decides, free of the scheduling noise of wall-clock
    /// delays: the same seed and packet sequence plan the same jitter. Empty without jitter.
    public func jitterPlan() -> (up: [Int64], down: [Int64]) {
        (up.published.jitterPlan.withLock { $0 }, down.published.jitterPlan.withLock { $0 })
    }
}

/// One direction as the emulator's other threads see it: its name and published
/// figures, and its loop (`EmulatorDirection`) until the direction's thread takes it.
final class EmulatorDirectionHandle: Sendable {
    let name: String
    let published: DirectionFigures
    private let loop: Mutex<EmulatorDirection?>

    init(_ loop: sending EmulatorDirection) {
        name = loop.name
        published = loop.published
        self.loop = Mutex(loop)
    }

    /// The loop, to the first caller only: the thread that runs it.
    func takeLoop() -> EmulatorDirection? { loop.withLock { $0.take() } }
}

/// A direction's counters and lateness: written by its thread, read by any.
final class DirectionFigures: Sendable {
    /// Updated in place under an uncontended lock (tens of nanoseconds, against
    /// microseconds for the packet's system calls).
    let state = Mutex((DirectionCounters(), SchedulingError()))
    /// `Emulator.jitterPlan`: the planned jitter of the first `jitterPlanLimit` delivered packets.
    let jitterPlan = Mutex<[Int64]>([])
    static let jitterPlanLimit = 10_000

    func counters() -> DirectionCounters { state.withLock { $0.0 } }
    func schedulingError() -> SchedulingError { state.withLock { $0.1 } }
}

/// One direction of the link. Built by `Emulator.init`, then owned by the direction's
/// thread (`EmulatorDirectionHandle.takeLoop`), which alone touches its state; counters
/// and statistics reach other threads through `published`, under a mutex.
///
/// Packets queue per access category (`CategoryQueue`, by the DSCP in their header);
/// whenever the transmitter is free it sends the oldest packet of the highest
/// non-empty category. With one category in use that is first in, first out.
final class EmulatorDirection {
    let name: String
    private let input: Int32
    private let output: Int32
    private let p: EmulatorParameters
    private let start: UInt64
    /// One queue per access category, lowest priority first.
    private let queues: [CategoryQueue]
    /// Best effort's ring, where every frame is read first (most traffic stays there).
    private let ring: PacketRing
    private var lossRandom: SeededRandom
    private var jitterRandom: SeededRandom
    /// Draws for missed availability windows (its own stream: loss and jitter draws stay as they were).
    private var windowRandom: SeededRandom
    private var trace: ChannelTrace?
    private let scenario: ScenarioTimeline?
    /// This direction's delivery trace (scenario `trace`), replacing rate and schedule.
    private var traceCursor: TraceCursor?
    private var lossState = LossProcess()
    /// When the transmitter finishes the frame on the air (monotonic nanoseconds).
    private var txFree: UInt64
    private let jitterSd: Double
    /// Nanoseconds per byte at the fixed rate (0 = unlimited).
    private let nanosPerByte: Double
    /// With a frame-counting MAC (`FrameAggregation`): when the transmitter next wins the
    /// medium (monotonic nanoseconds); packets queued by then go out in that aggregate.
    private var accessAt: UInt64?
    /// When the packet that started the pending access arrived (for the window wait).
    private var accessRequestedAt: UInt64 = 0
    /// Entries in `published.jitterPlan` so far (this thread's count: no lock once full).
    private var jitterPlanned = 0

    /// Counters and lateness, shared with the other threads (`DirectionFigures`).
    let published = DirectionFigures()

    init(name: String, input: Int32, output: Int32, parameters: EmulatorParameters, seed: UInt64, stream: UInt64, start: UInt64) {
        self.name = name
        self.input = input
        self.output = output
        p = parameters
        self.start = start
        txFree = start
        lossRandom = SeededRandom(seed: seed, stream: 16 * stream + 1)
        jitterRandom = SeededRandom(seed: seed, stream: 16 * stream + 2)
        windowRandom = SeededRandom(seed: seed, stream: 16 * stream + 3)
        // Both directions share one radio channel: same trace stream.
        trace = parameters.radio.map { ChannelTrace($0, seed: seed, scenario: parameters.scenario) }
        scenario = parameters.scenario
        traceCursor = (stream == 0 ? parameters.scenario?.traceUp : parameters.scenario?.traceDown).map(TraceCursor.init)
        jitterSd = Double(parameters.jitterNanos)
        nanosPerByte = (parameters.airBitsPerSecond ?? parameters.rateBitsPerSecond).map { 8e9 / $0 } ?? 0
        // Room for the queue plus what is in flight; the mapping is lazy, so be generous.
        let capacity = max(64 << 20, 2 * parameters.queue.bytes)
        queues = AccessCategory.allCases.map { CategoryQueue($0, capacity: capacity) }
        ring = queues[AccessCategory.bestEffort.rawValue].ring
    }

    // MARK: The loop

    func run(stopFd: Int32) {
        _ = pbl_set_timer_slack(1)  // precise wake-ups: the default slack is 50 us
        // A real-time priority keeps release times when the peers (or anything else)
        // load both cores. The thread blocks between packets, so it cannot starve
        // others; without CAP_SYS_NICE it simply stays a normal thread.
        if p.realtimePriority > 0 { _ = pbl_set_realtime(Int32(p.realtimePriority)) }
        let scratch = UnsafeMutableRawPointer.allocate(byteCount: PacketRing.maxFrame, alignment: 64)
        defer { scratch.deallocate() }
        while true {
            var now = MonotonicClock.now()
            releaseDue(now: now)
            // Read what is waiting, in batches, releasing due packets in between so a
            // burst of arrivals never delays a departure by more than one batch.
            var batch = 0
            var drained = false
            while batch < 64 {
                let offset = ring.reserve()
                let target = offset.map { ring.base + $0 } ?? scratch
                let n = read(input, target, PacketRing.maxFrame)
                if n < 0 {
                    let e = errno
                    if e == EINTR { continue }
                    if e == EAGAIN {
                        drained = true
                        break
                    }
                    // The device went away (namespace removed): nothing left to emulate.
                    return
                }
                now = MonotonicClock.now()
                arrive(frame: target, length: n, offset: offset, now: now)
                transmitDue(now: now)
                batch += 1
                releaseDue(now: now)
            }
            if !drained { continue }
            now = MonotonicClock.now()
            transmitDue(now: now)
            var wake = queues.nextRelease?.release ?? .max
            if queues.earliestWaiting != nil { wake = min(wake, accessAt ?? txFree) }
            var timeout: Int64 = -1
            if wake != .max {
                if wake <= now { continue }
                timeout = Int64(wake - now)
            }
            let r = pbl_wait(input, stopFd, timeout)
            if r > 0 && r & 2 != 0 { break }
        }
    }

    @inline(__always)
    private func releaseDue(now: UInt64) {
        while let (q, release) = queues.nextRelease, release <= now {
            let f = q.ring.first!
            if f.deliver {
                _ = write(output, q.ring.base + f.offset, f.length)
                let late = MonotonicClock.now() &- f.release
                published.state.withLock { $0.1.record(lateNanos: late) }
            }
            q.ring.removeFirst()
        }
    }

    /// Puts waiting packets on the air, one at a time, for as long as the transmitter
    /// comes free by `now`: each time the oldest packet of the highest category that
    /// has arrived by then (strict priority), serialised only while the channel is on.
    @inline(__always)
    private func transmitDue(now: UInt64) {
        if let mac = p.aggregation {
            transmitAggregates(now: now, mac: mac)
            return
        }
        while let earliest = queues.earliestWaiting {
            let decision = max(txFree, earliest)
            guard decision <= now, let q = queues.next(at: decision) else { return }
            let (packet, slot) = q.dequeue()
            // Availability windows: a frame that found the transmitter idle waits for the
            // next window; one that queued behind a transmission follows it back to back.
            let earliestStart = packet.arrival > txFree ? accessTime(atOrAfter: decision - start) : decision - start
            let departure =
                start
                + (traceCursor != nil
                    ? traceCursor!.departure(earliest: decision - start, bytes: packet.wireBytes)
                    : p.schedule.departure(earliest: earliestStart, duration: packet.duration))
            let out = scenario?.isOut(at: departure - start) ?? false
            if !out { txFree = departure }
            plan(packet, slot: slot, in: q, departure: departure, out: out)
        }
    }

    /// The start of the first availability window at or after `t` (link clock; `t` itself
    /// without windows), skipping the windows the schedule's miss probability says the
    /// exchange misses.
    @inline(__always)
    private func accessTime(atOrAfter t: UInt64) -> UInt64 {
        guard let window = p.schedule.windowNanos else { return t }
        var at = p.schedule.windowStart(atOrAfter: t)
        var missed = 0
        while missed < 16 && windowRandom.unit() < p.schedule.windowMissProbability {
            at += window
            missed += 1
        }
        return at
    }

    /// Plans a packet that leaves the transmitter at `departure`: lost without air time
    /// while the link is `out` (a scenario's outage); otherwise it held the queue until
    /// then, and unless lost on the air it is delivered after the delay and its jitter,
    /// never before a packet ahead of it in its category.
    @inline(__always)
    private func plan(_ packet: WaitingPacket, slot: Int, in q: CategoryQueue, departure: UInt64, out: Bool) {
        if out {
            if !packet.lost { drop(.outage) }
            q.ring.setRelease(max(departure, q.lastRelease), deliver: false, at: slot)
            return
        }
        q.backlog.add(departure: departure, packets: packet.segments, bytes: packet.wireBytes)
        // A lost packet used its air time; it leaves the ring unwritten.
        if packet.lost {
            q.ring.setRelease(max(departure, q.lastRelease), deliver: false, at: slot)
            return
        }
        var release = departure &+ p.delayNanos
        if packet.jitterDraw != 0 {
            let shifted = Double(release) + packet.jitterDraw * jitterSd
            release = UInt64(max(Double(departure), shifted))
            if jitterPlanned < DirectionFigures.jitterPlanLimit {
                jitterPlanned += 1
                let planned = Int64(bitPattern: release &- departure) - Int64(p.delayNanos)
                published.jitterPlan.withLock { $0.append(planned) }
            }
        }
        release = max(release, q.lastRelease)  // keep order within the category
        q.lastRelease = release
        q.ring.setRelease(release, deliver: true, at: slot)
        published.state.withLock { $0.0.recordDelivery(bytes: packet.wireBytes, at: release - start) }
    }

    /// The frame-counting MAC (`FrameAggregation`): whenever the transmitter wins the
    /// medium it sends one aggregate of the packets of the highest waiting category that
    /// are queued by then, up to the MPDU and PPDU limits, charged the category's access,
    /// the exchange and each MPDU's bytes and overhead. A packet that finds the
    /// transmitter idle asks for access at the next availability window (missing some
    /// with the schedule's probability); what arrives meanwhile joins that aggregate.
    /// Aggregates queued behind a transmission follow it back to back.
    @inline(__always)
    private func transmitAggregates(now: UInt64, mac: FrameAggregation) {
        while let earliest = queues.earliestWaiting {
            if accessAt == nil {
                let requested = max(txFree, earliest)
                guard requested <= now else { return }
                let at = earliest > txFree ? accessTime(atOrAfter: requested - start) : requested - start
                accessAt = start + at
                accessRequestedAt = requested
            }
            let t = accessAt!
            guard t <= now, let q = queues.next(at: t) else { return }
            accessAt = nil
            // Gather what is queued by now, oldest first, within the aggregate's limits.
            var air = mac.fixedNanos(q.category)
            var mpdus = 0
            let firstSlot = q.ring.slots.count - q.waiting.count
            while let head = q.waiting.first, head.arrival <= t {
                if mpdus > 0 && (mpdus + head.segments > mac.maxMPDUs || air + head.duration > mac.maxPPDUNanos) { break }
                _ = q.dequeue()
                air += head.duration
                mpdus += head.segments
                pendingMembers.append(head)
            }
            let departure =
                start
                + (traceCursor != nil
                    ? traceCursor!.departure(earliest: t - start, bytes: pendingMembers.reduce(0) { $0 + $1.wireBytes })
                    : p.schedule.departure(earliest: t - start, duration: air))
            let out = scenario?.isOut(at: departure - start) ?? false
            if !out {
                txFree = departure
                published.state.withLock {
                    $0.0.air.aggregates += 1
                    $0.0.air.mpdus += mpdus
                    $0.0.air.windowWaitNanos += t &- accessRequestedAt
                }
            }
            for (i, packet) in pendingMembers.enumerated() {
                plan(packet, slot: firstSlot + i, in: q, departure: departure, out: out)
            }
            pendingMembers.removeAll(keepingCapacity: true)
        }
    }

    /// The packets of the aggregate being built (kept to reuse its storage).
    private var pendingMembers: [WaitingPacket] = []

    @inline(__always)
    private func drop(_ cause: DropCause) {
        let i = DropCause.allCases.firstIndex(of: cause)!
        published.state.withLock { $0.0.drops[i] += 1 }
    }

    @inline(__always)
    private func arrive(frame: UnsafeMutableRawPointer, length: Int, offset: Int?, now: UInt64) {
        let info = pbl_packet_inspect(frame.assumingMemoryBound(to: UInt8.self), length)
        let segments = Int(info.segments), wireBytes = Int(info.wire_bytes)
        published.state.withLock {
            $0.0.packets += segments
            $0.0.bytes += wireBytes
        }
        let t = now - start

        // Draw every random value each packet needs up front, whatever happens to it,
        // so the loss pattern depends only on the seed and the packet sequence.
        let lossDraw = lossRandom.unit(), transitionDraw = lossRandom.unit()
        let jitterDraw = jitterSd > 0 ? jitterRandom.normal() : 0

        var lossP = p.lossProbability
        var nanosPerByte = self.nanosPerByte
        if trace != nil {
            trace!.advance(to: t)
            lossP = trace!.lossProbability
            nanosPerByte = 8e9 / trace!.rateBitsPerSecond
        }

        // Into its category's queue; frames are read into best effort's ring.
        let q = queues[AccessCategory.of(frame: frame, length: length).rawValue]
        var slot = offset
        if q.ring !== ring {
            slot = q.ring.reserve()
            if let slot { (q.ring.base + slot).copyMemory(from: frame, byteCount: length) }
        }
        guard let slot else {
            drop(.queue)
            return
        }  // ring full

        let held = q.occupancy(now: now)
        if held.packets + segments > p.queue.packets || held.bytes + wireBytes > p.queue.bytes {
            drop(p.schedule.isOff(at: t) ? .offChannel : .queue)
            return
        }

        // Serialisation (`transmitDue`): after the packets ahead of it, only while the
        // channel is on; the category's longer channel access, if any, counts as air time.
        let duration =
            p.aggregation.map { UInt64(Double(wireBytes + segments * $0.mpduOverheadBytes) * nanosPerByte) }
            ?? UInt64(Double(wireBytes) * nanosPerByte) &+ UInt64(segments) &* q.extraAirtimeNanos
        let lost = lossState.isLost(probability: lossP, burst: p.burstLoss, draw: lossDraw, transition: transitionDraw, at: t)
        if lost { drop(.loss) }
        q.ring.commit(offset: slot, length: length, release: .max)
        q.enqueue(
            WaitingPacket(
                arrival: now, segments: segments, wireBytes: wireBytes, duration: duration,
                lost: lost, jitterDraw: jitterDraw))
    }
}
