import Testing

@testable import LinkEmulation

@Suite
struct ChannelScheduleTests {
    let slot = ChannelSchedule.awdlSlotNanos
    let bulk = ChannelSchedule.awdl(offSlots: 2)

    @Test("two off-channel slots of 64 TU: slots 7 and 15 off, 14 of 16 on channel; four: one every four slots")
    func offSlotShape() {
        #expect(slot == 65_536_000)
        #expect(bulk.onFraction == 14.0 / 16)
        #expect((0..<16).filter { bulk.isOff(at: UInt64($0) * slot) } == [7, 15])
        let four = ChannelSchedule.awdl(offSlots: 4)
        #expect((0..<16).filter { four.isOff(at: UInt64($0) * slot) } == [3, 7, 11, 15])
        #expect(ChannelSchedule.realtime.isAlwaysOn && ChannelSchedule.realtime.onFraction == 1)
        #expect(ChannelSchedule.realtime.windowNanos == nil)
    }

    @Test("the default bulk schedule: always on channel, frames from the start of 16 TU availability windows")
    func bulkWindows() {
        let b = ChannelSchedule.bulk
        #expect(b.isAlwaysOn && b.offSlotCount == 0)
        #expect(b.windowNanos == 16 * 1_024_000)
        let w = ChannelSchedule.availabilityWindowNanos
        #expect(b.windowStart(atOrAfter: 0) == 0)
        #expect(b.windowStart(atOrAfter: 1) == w)
        #expect(b.windowStart(atOrAfter: w) == w)
        #expect(b.windowStart(atOrAfter: 5 * w + 3) == 6 * w)
        // Four windows make a slot, so windows and slots share their boundaries.
        #expect(ChannelSchedule.awdlSlotNanos == 4 * w)
        #expect(ChannelSchedule.realtime.windowStart(atOrAfter: 12_345) == 12_345)
    }

    @Test("a packet arriving during an off-channel slot waits for the next on-channel slot")
    func offSlotWaits() {
        let inOff = 7 * slot + 1_000_000
        #expect(bulk.nextOn(atOrAfter: inOff).start == 8 * slot)
        #expect(bulk.departure(earliest: inOff, duration: 100_000) == 8 * slot + 100_000)
        // On channel: leaves after its own serialisation time.
        #expect(bulk.departure(earliest: 3 * slot, duration: 100_000) == 3 * slot + 100_000)
        // The on-channel stretch of slots 8-14 ends where slot 15 begins.
        #expect(bulk.nextOn(atOrAfter: 9 * slot).end == 15 * slot)
        // Wraps around the 16-slot sequence.
        #expect(bulk.nextOn(atOrAfter: 15 * slot + 5).start == 16 * slot)
    }

    @Test("a frame that would not finish before the channel leaves goes out in the next on-channel stretch")
    func framesAreNotSplit() {
        let nearEnd = 7 * slot - 50_000
        #expect(bulk.departure(earliest: nearEnd, duration: 100_000) == 8 * slot + 100_000)
        #expect(bulk.departure(earliest: nearEnd, duration: 40_000) == nearEnd + 40_000)
    }
}
