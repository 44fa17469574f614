import CNgtcp2

/// The outgoing bytes of one QUIC stream, in memory that does not move.
///
/// ngtcp2 does not copy stream data: it keeps pointers to what it packed until the
/// peer acknowledges it (`acked_stream_data_offset`). So a sender holds a queue of
/// regions that stay put until acknowledged: small buffers it owns (probe echoes,
/// control frames), freed on acknowledgement, and a region it only borrows repeated
/// `count` times (the bulk phase's one message, reused for every message, so a
/// 1.6 GB transfer needs 16 KB of payload memory).
final class StreamSender {
    private struct Item {
        var base: UnsafeRawPointer
        var length: Int
        var repeats: UInt64
        var owned: Bool
        /// Stream offset just past this item.
        var end: UInt64
    }

    let streamID: Int64
    private var items: [Item] = []
    /// Index into `items` of the first item not entirely handed to ngtcp2.
    private var head = 0
    /// Bytes of `items[head]` (counting all repeats) already handed to ngtcp2.
    private var headConsumed: UInt64 = 0
    /// Stream offset handed to ngtcp2 so far.
    private(set) var offset: UInt64 = 0
    /// Stream offset the peer acknowledged.
    private(set) var ackedOffset: UInt64 = 0
    private var totalQueued: UInt64 = 0
    private(set) var finQueued = false
    private(set) var finWritten = false
    /// Takes turns with the other such streams (`StreamScheduler`): a parallel flow.
    var sharesFairly = false
    /// Bytes handed to ngtcp2 since this stream's last turn began (`StreamScheduler.quantum`).
    var servedThisTurn: UInt64 = 0

    init(streamID: Int64) { self.streamID = streamID }

    deinit {
        for item in items where item.owned { item.base.deallocate() }
    }

    /// Bytes waiting to be handed to ngtcp2 (or a FIN still to write).
    /// Stream offset just past everything queued so far.
    var queuedEnd: UInt64 { totalQueued }

    var hasPending: Bool { offset < totalQueued || (finQueued && !finWritten) }
    /// Everything, FIN included, handed to ngtcp2.
    var isFullyWritten: Bool { finQueued && finWritten }

    /// Queues a copy of `bytes` (owned, freed once acknowledged).
    func append(copying bytes: [UInt8]) {
        precondition(!finQueued, "stream \(streamID): data after FIN")
        guard !bytes.isEmpty else { return }
        let p = UnsafeMutableRawPointer.allocate(byteCount: bytes.count, alignment: 1)
        bytes.withUnsafeBytes { p.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
        push(Item(base: UnsafeRawPointer(p), length: bytes.count, repeats: 1, owned: true, end: 0))
    }

    /// Queues `region` repeated `repeats` times without copying. The caller keeps the
    /// region alive and unchanged for the connection's lifetime.
    func append(borrowing region: UnsafeRawBufferPointer, repeats: UInt64 = 1) {
        precondition(!finQueued, "stream \(streamID): data after FIN")
        guard region.count > 0, repeats > 0 else { return }
        push(Item(base: region.baseAddress!, length: region.count, repeats: repeats, owned: false, end: 0))
    }

    func finish() { finQueued = true }

    private func push(_ item: Item) {
        var it = item
        totalQueued += UInt64(it.length) * it.repeats
        it.end = totalQueued
        items.append(it)
    }

    /// Fills `vecs` with up to `vecs.count` regions starting at the unsent offset,
    /// about `budget` bytes in all (enough for a packet or two). Returns how many
    /// vectors were filled and whether they reach the end of the stream.
    func fill(_ vecs: UnsafeMutableBufferPointer<ngtcp2_vec>, budget: Int) -> (count: Int, reachesEnd: Bool) {
        var n = 0
        var bytes = 0
        var index = head
        var consumed = headConsumed
        while n < vecs.count, bytes < budget, index < items.count {
            let item = items[index]
            let len = UInt64(item.length)
            let within = consumed % len
            let chunk = Int(len - within)
            vecs[n] = ngtcp2_vec(base: UnsafeMutablePointer(mutating: item.base.assumingMemoryBound(to: UInt8.self)) + Int(within), len: chunk)
            n += 1
            bytes += chunk
            consumed += UInt64(chunk)
            if consumed == len * item.repeats {
                index += 1
                consumed = 0
            }
        }
        return (n, index == items.count)
    }

    /// Records that ngtcp2 took `count` bytes (and the FIN, if `fin`).
    func consumed(_ count: Int, fin: Bool) {
        var left = UInt64(count)
        offset += left
        servedThisTurn += left
        while left > 0 {
            let item = items[head]
            let size = UInt64(item.length) * item.repeats
            let take = min(left, size - headConsumed)
            headConsumed += take
            left -= take
            if headConsumed == size {
                head += 1
                headConsumed = 0
            }
        }
        if fin { finWritten = true }
    }

    /// The peer acknowledged everything below `upTo`: frees owned regions below it.
    func acknowledged(upTo: UInt64) {
        guard upTo > ackedOffset else { return }
        ackedOffset = upTo
        var drop = 0
        while drop < head, items[drop].end <= upTo {
            if items[drop].owned {
                items[drop].base.deallocate()
                items[drop].owned = false
            }
            drop += 1
        }
        // Compact only once the dead prefix is sizeable, so acknowledgements stay cheap.
        if drop >= 32 || (drop > 0 && drop == items.count) {
            items.removeFirst(drop)
            head -= drop
        }
    }
}
