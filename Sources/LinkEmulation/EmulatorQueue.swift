import CLinkEmulation
import DequeModule

#if canImport(Glibc)
    import Glibc
#endif

/// One packet held by the emulator: where its bytes are in the ring and when it
/// leaves the transmitter and reaches the other side.
struct PacketSlot {
    /// Offset of the frame (vnet header + IP packet) in the ring.
    var offset: Int
    /// Frame length in bytes, vnet header included.
    var length: Int
    /// Planned delivery time, monotonic nanoseconds; `UInt64.max` while the packet
    /// waits for the medium (`CategoryQueue`).
    var release: UInt64
    /// False for a packet lost on the air: it leaves at `release` without being written.
    var deliver = true
}

/// The packets of one direction between arrival and delivery, in arrival order.
///
/// Delivery keeps packet order, so the bytes can live in one preallocated ring:
/// new frames are read straight into its tail and written out from its head, with
/// no per-packet allocation or copy. The slot descriptors sit in a `Deque`.
final class PacketRing {
    /// The largest frame a TUN read can return: vnet header + a 64 KiB IP packet.
    static let maxFrame = Int(PBL_VNET_HDR_LEN) + 65_536
    let capacity: Int
    let base: UnsafeMutableRawPointer
    private(set) var slots = Deque<PacketSlot>()
    private var tail = 0

    /// A ring of `capacity` bytes. The memory is mapped lazily, so an idle link costs
    /// address space, not RAM.
    init(capacity: Int) {
        self.capacity = max(capacity, 4 * Self.maxFrame)
        let p = mmap(nil, self.capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        precondition(p != MAP_FAILED && p != nil, "emulator: cannot map a \(self.capacity)-byte packet ring")
        base = p!
    }

    deinit { munmap(base, capacity) }

    /// Offset where the next frame (up to `maxFrame` bytes) can be read, nil when the
    /// ring is full.
    @inline(__always)
    func reserve() -> Int? {
        guard let head = slots.first?.offset else {
            tail = 0
            return 0
        }
        if tail >= head {
            if capacity - tail >= Self.maxFrame { return tail }
            return head > Self.maxFrame ? 0 : nil
        }
        return head - tail > Self.maxFrame ? tail : nil
    }

    /// Appends the frame just read at `offset` (from `reserve`).
    @inline(__always)
    func commit(offset: Int, length: Int, release: UInt64) {
        slots.append(PacketSlot(offset: offset, length: length, release: release))
        tail = offset + ((length + 63) & ~63)  // cache-line aligned frames
    }

    /// Sets the release time of a slot committed with an unknown one.
    @inline(__always)
    func setRelease(_ release: UInt64, deliver: Bool, at index: Int) {
        slots[index].release = release
        slots[index].deliver = deliver
    }

    var isEmpty: Bool { slots.isEmpty }
    var first: PacketSlot? { slots.first }

    @inline(__always)
    func removeFirst() { slots.removeFirst() }

    func removeAll() {
        slots.removeAll(keepingCapacity: true)
        tail = 0
    }
}

/// The transmitter's drop-tail queue accounting: packets that have arrived but not
/// yet finished serialisation. Departure times never decrease, so finished ones are
/// always at the front.
struct Backlog {
    private var entries = Deque<(departure: UInt64, packets: Int, bytes: Int)>()
    private(set) var packets = 0
    private(set) var bytes = 0

    /// Forgets packets whose serialisation ended by `now`.
    @inline(__always)
    mutating func expire(now: UInt64) {
        while let f = entries.first, f.departure <= now {
            packets -= f.packets
            bytes -= f.bytes
            entries.removeFirst()
        }
    }

    @inline(__always)
    mutating func add(departure: UInt64, packets p: Int, bytes b: Int) {
        entries.append((departure, p, b))
        packets += p
        bytes += b
    }
}
