import Testing

@testable import QUICTransport

/// The batching rules on their own: equal packets share a send, a shorter packet
/// ends a batch, a bigger one starts a new one, and a batch never exceeds its limit.
@Suite(.timeLimit(.minutes(1))) struct PacketBatcherTests {
    /// Feeds packet sizes through a batcher the way `writePackets` does and returns
    /// the sends it makes.
    static func sends(_ sizes: [Int], maxPackets: Int) -> [PacketBatcher.Batch] {
        var batcher = PacketBatcher(maxPackets: maxPackets)
        var out: [PacketBatcher.Batch] = []
        for size in sizes {
            var step = batcher.add(size)
            if step == .sendEarlierFirst {
                if let b = batcher.take() { out.append(b) }
                #expect(batcher.nextOffset == 0, "the moved packet goes to the buffer's start")
                step = batcher.add(size)
            }
            if step == .send, let b = batcher.take() { out.append(b) }
        }
        if let b = batcher.take() { out.append(b) }
        return out
    }

    @Test func equalPacketsShareOneSend() {
        #expect(Self.sends([1200, 1200, 1200], maxPackets: 40) == [.init(bytes: 3600, segment: 1200)])
    }

    @Test func aSingleSmallPacketIsSentUnsegmented() {
        #expect(Self.sends([75], maxPackets: 40) == [.init(bytes: 75, segment: 0)])
    }

    @Test func aShorterPacketEndsTheBatch() {
        #expect(
            Self.sends([1200, 1200, 300, 1200], maxPackets: 40)
                == [.init(bytes: 2700, segment: 1200), .init(bytes: 1200, segment: 0)])
    }

    @Test func aBiggerPacketStartsANewBatch() {
        #expect(
            Self.sends([300, 300, 1200, 1200], maxPackets: 40)
                == [.init(bytes: 600, segment: 300), .init(bytes: 2400, segment: 1200)])
    }

    @Test func batchesStopAtTheLimit() {
        let sends = Self.sends(Array(repeating: 1452, count: 100), maxPackets: 40)
        #expect(
            sends == [
                .init(bytes: 40 * 1452, segment: 1452), .init(bytes: 40 * 1452, segment: 1452),
                .init(bytes: 20 * 1452, segment: 1452),
            ])
    }

    @Test func offsetsFollowTheBytesAdded() {
        var batcher = PacketBatcher(maxPackets: 4)
        #expect(batcher.isEmpty && batcher.nextOffset == 0)
        #expect(batcher.add(100) == .keep)
        #expect(batcher.nextOffset == 100)
        #expect(batcher.add(100) == .keep)
        #expect(batcher.add(40) == .send)
        #expect(batcher.take() == .init(bytes: 240, segment: 100))
        #expect(batcher.isEmpty && batcher.nextOffset == 0 && batcher.take() == nil)
    }
}

/// Stream service order: streams in the order they became active, finished ones
/// pruned, removed ones gone.
@Suite(.timeLimit(.minutes(1))) struct StreamSchedulerTests {
    @Test func servesStreamsInActivationOrderAndPrunesIdleOnes() {
        var scheduler = StreamScheduler()
        let control = scheduler.sender(0)
        control.append(copying: [1, 2, 3])
        let bulk = scheduler.sender(4)
        bulk.append(copying: [4])
        bulk.finish()
        var index = 0
        #expect(scheduler.nextPending(from: &index) === control && index == 0)
        control.consumed(3, fin: false)
        #expect(scheduler.nextPending(from: &index) === bulk && index == 1)
        bulk.consumed(1, fin: true)
        #expect(scheduler.nextPending(from: &index) == nil && index == 2)
        scheduler.pruneIdle()
        #expect(scheduler.activeCount == 0)
        // A sender asked for again is scheduled again, not duplicated.
        #expect(scheduler.sender(0) === control)
        #expect(scheduler.sender(0) === control && scheduler.activeCount == 1)
        scheduler.remove(0)
        #expect(scheduler.activeCount == 0 && scheduler.existing(0) == nil && scheduler.existing(4) === bulk)
    }

    /// A loaded probe queued on the control stream while a bulk stream always has data
    /// goes into the next packet, not after the bulk data (the old activation order
    /// put the re-activated control stream last: it waited for the whole bulk phase).
    @Test func aReactivatedControlStreamGoesAheadOfBulkData() {
        var scheduler = StreamScheduler()
        let control = scheduler.sender(0)
        control.append(copying: [1])
        let bulk = scheduler.sender(4)
        bulk.append(copying: [UInt8](repeating: 7, count: 1000))
        control.consumed(1, fin: false)
        scheduler.pruneIdle()
        #expect(scheduler.activeCount == 1)
        let again = scheduler.sender(0)
        again.append(copying: [2])
        var index = 0
        #expect(scheduler.nextPending(from: &index) === control, "the PING goes first")
        let later = scheduler.sender(8)
        later.append(copying: [3])
        index = 1
        #expect(scheduler.nextPending(from: &index) === bulk)
        index = 2
        #expect(scheduler.nextPending(from: &index) === later, "new streams still after the older ones")
    }
}
