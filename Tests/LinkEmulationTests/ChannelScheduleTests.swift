import Testing
@testable import LinkEmulation

@Suite
struct ChannelScheduleTests {
    let slot = ChannelSchedule.awdlSlotNanos
    let bulk = ChannelSchedule.bulk

    @Test("bulk: 14 of 16 slots of 64 TU on channel, slots 7 and 15 off")
    func bulkShape() {
        #expect(slot == 65_536_000)
        #expect(bulk.onFraction == 14.0 / 16)
        #expect((0..<16).filter { bulk.isOff(at: UInt64($0) * slot) } == [7, 15])
        #expect(ChannelSchedule.realtime.isAlwaysOn && ChannelSchedule.realtime.onFraction == 1)
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
