import Testing

@testable import PeerBenchCore

/// The 128-bit digest merge remembers written lines by, and compare and report find
/// records by: lines that differ in any bit or only in their length get different
/// digests, wherever in memory the bytes lie.
@Suite struct StableDigestTests {
    @Test func linesOfZerosDifferByTheirLength() {
        let digests = (0...64).map { StableDigest.of([UInt8](repeating: 0, count: $0)[...]) }
        #expect(Set(digests).count == 65)
    }

    @Test func everyFlippedBitGivesAnotherDigest() {
        let line = Array(#"{"schema":"peerbench.record/5","run_id":"r","cell_id":"c","repetition":1}"#.utf8)
        var digests: Set<StableDigest> = [StableDigest.of(line[...])]
        for bit in 0..<line.count * 8 {
            var flipped = line
            flipped[bit / 8] ^= 1 << UInt8(bit % 8)
            digests.insert(StableDigest.of(flipped[...]))
        }
        #expect(digests.count == line.count * 8 + 1)
    }

    @Test func aSliceDigestsAsItsBytesAlone() {
        let journal = Array("first line\nsecond line, the one read\nthird".utf8)
        let start = journal.firstIndex(of: 10)! + 1
        let end = journal[start...].firstIndex(of: 10)!
        #expect(StableDigest.of(journal[start..<end]) == StableDigest.of(Array("second line, the one read".utf8)[...]))
        #expect(StableDigest.of(journal[start..<end]) != StableDigest.of(journal[start..<end - 1]))
    }
}
