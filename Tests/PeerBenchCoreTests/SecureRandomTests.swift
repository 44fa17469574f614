import PeerBenchSystem
import Testing

/// The one source of secret bytes.
@Suite struct SecureRandomTests {
    /// getentropy gives at most 256 bytes a call; longer draws are filled in pieces.
    @Test func drawsAnyLengthAndNeverTheSameTwice() throws {
        for count in [0, 1, 32, 256, 257, 1_000] {
            #expect(try SecureRandom.bytes(count).count == count)
        }
        let a = try SecureRandom.bytes(1_000), b = try SecureRandom.bytes(1_000)
        #expect(a != b)
        #expect(a.suffix(744).contains { $0 != 0 }, "the bytes past the first 256 are drawn too")
    }
}
