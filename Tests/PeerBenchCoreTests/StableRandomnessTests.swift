import PeerBenchCore
import PeerBenchSystem
import Testing

/// SplitMix64 and FNV-1a 64, each written once in PeerBenchSystem (issue 40), give what
/// the published algorithms give and what PeerBench gave before: cell seeds, the seeded
/// generator's streams and cell ids are persisted or reproduced, so none may move.
/// (`CellIDGoldenTests` pins the cell ids of every built-in matrix.)
@Suite struct StableRandomnessTests {
    /// Vigna's reference splitmix64.c from state 0.
    @Test func splitMix64GivesTheReferenceSequence() {
        var g = SplitMix64(state: 0)
        #expect(g.next() == 0xE220_A839_7B1D_CDAF)
        #expect(g.next() == 0x6E78_9E6A_A1B9_65F4)
        #expect(SplitMix64.mix(0) == 0xE220_A839_7B1D_CDAF)
        #expect(SplitMix64.mix(12_345) == 0x2211_8258_A9D1_11A0)
    }

    /// The FNV specification's test vectors.
    @Test func fnv1a64GivesTheReferenceHashes() {
        #expect(FNV1a64.hash("") == 0xCBF2_9CE4_8422_2325)
        #expect(FNV1a64.hash("a") == 0xAF63_DC4C_8601_EC8C)
        #expect(FNV1a64.hash("foobar") == 0x8594_4171_F739_67E8)
        #expect(StableHash.hex("a") == "af63dc4c8601ec8c")
    }

    /// What `SeededRandom` drew before it took SplitMix64 and FNV-1a from their one place.
    @Test func seededRandomStreamsAreUnchanged() {
        var plain = SeededRandom(seed: 42)
        #expect([plain.next(), plain.next(), plain.next()] == [0x1578_0B2E_0C2E_C716, 0x6104_D986_6D11_3A7E, 0xAE17_5332_39E4_99A1])
        var numbered = SeededRandom(seed: 42, stream: 3)
        #expect([numbered.next(), numbered.next()] == [0x3CF8_60AF_930C_C916, 0x1CE8_FD05_1379_4C95])
        var named = SeededRandom(seed: 7, stream: "uwb.channel")
        #expect([named.next(), named.next()] == [0xA6B5_7CF1_50D6_B098, 0x4774_DB0D_DB95_ABA1])
    }

    /// The seeds matrix.json's first cell had before (run seed 7, repetitions 1 and 2),
    /// as the code before issue 40 computes them.
    @Test func cellSeedsAreUnchanged() throws {
        let cells = try loader.load(path: packageRoot + "/matrix.json").cells(seed: 7, repetitions: 2)
        let first = cells[0], again = try #require(cells.first { $0.id == first.id && $0.repetition == 2 })
        #expect(first.id == "2e287c9cdae5d5b1")
        #expect(first.seed == 8_115_057_856_513_596)
        #expect(again.seed == 8_689_889_640_665_992)
    }
}
