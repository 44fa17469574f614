import DequeModule

#if canImport(Glibc)
    import Glibc
#endif

/// A packet that has arrived in its category's queue but is not on the air yet. Its
/// bytes sit in the category's ring (the ring's last slots, in arrival order); what is
/// decided at arrival — its air time, whether it is lost, its jitter — is kept here, so
/// the random streams advance in arrival order whatever the queues do.
struct WaitingPacket {
    /// Arrival, monotonic nanoseconds.
    var arrival: UInt64
    var segments: Int
    var wireBytes: Int
    /// Air time at the rate when it arrived, nanoseconds.
    var duration: UInt64
    var lost: Bool
    /// Standard normal draw for its delivery jitter (0 = none).
    var jitterDraw: Double
}

/// One access category's transmit queue: its own packet ring (delivery keeps order
/// within a category, not across them), the packets waiting for the medium, and the
/// drop-tail accounting against the link's queue limits, which apply per category as
/// Linux's Wi-Fi stack keeps one queue per access category.
final class CategoryQueue {
    let category: AccessCategory
    let ring: PacketRing
    /// Arrived, not yet on the air, oldest first.
    var waiting = Deque<WaitingPacket>()
    private(set) var waitingPackets = 0
    private(set) var waitingBytes = 0
    /// On the air or done, departure not yet passed (the limit counts them too).
    var backlog = Backlog()
    /// Latest release time given in this category: releases never go backwards.
    var lastRelease: UInt64 = 0
    /// Extra air time per frame against best effort (`EDCAParameters`).
    let extraAirtimeNanos: UInt64

    init(_ category: AccessCategory, capacity: Int) {
        self.category = category
        ring = PacketRing(capacity: capacity)
        extraAirtimeNanos = EDCAParameters.extraAirtimeNanos(category)
    }

    /// Packets and bytes held, waiting or on the air, after forgetting those whose
    /// serialisation ended by `now`.
    @inline(__always)
    func occupancy(now: UInt64) -> (packets: Int, bytes: Int) {
        backlog.expire(now: now)
        return (backlog.packets + waitingPackets, backlog.bytes + waitingBytes)
    }

    /// Appends a packet whose frame was committed to `ring` with an unknown release.
    @inline(__always)
    func enqueue(_ p: WaitingPacket) {
        waiting.append(p)
        waitingPackets += p.segments
        waitingBytes += p.wireBytes
    }

    /// Takes the oldest waiting packet; returns it with the index of its ring slot.
    @inline(__always)
    func dequeue() -> (packet: WaitingPacket, slot: Int) {
        let slot = ring.slots.count - waiting.count
        let p = waiting.removeFirst()
        waitingPackets -= p.segments
        waitingBytes -= p.wireBytes
        return (p, slot)
    }
}

/// The strict-priority choice between categories: at decision time `at`, the highest
/// category whose oldest packet has arrived by then.
extension Array where Element == CategoryQueue {
    @inline(__always)
    func next(at t: UInt64) -> CategoryQueue? {
        var i = count - 1
        while i >= 0 {
            if let head = self[i].waiting.first, head.arrival <= t { return self[i] }
            i -= 1
        }
        return nil
    }

    /// The earliest arrival among the categories' oldest waiting packets.
    @inline(__always)
    var earliestWaiting: UInt64? {
        var e: UInt64?
        for q in self { if let a = q.waiting.first?.arrival, a < (e ?? .max) { e = a } }
        return e
    }

    /// The category whose head packet is released first, with that time.
    @inline(__always)
    var nextRelease: (queue: CategoryQueue, release: UInt64)? {
        var best: (CategoryQueue, UInt64)?
        for q in self { if let f = q.ring.first, f.release < (best?.1 ?? .max) { best = (q, f.release) } }
        return best
    }
}
