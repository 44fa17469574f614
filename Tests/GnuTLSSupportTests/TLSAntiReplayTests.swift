import Testing

@testable import GnuTLSSupport

/// The memory behind GnuTLS's anti-replay check: what its add callback answers.
@Suite struct TLSAntiReplayTests {
    @Test("a ClientHello key is accepted once; the same key again is a replay")
    func onceOnly() throws {
        let anti = try TLSAntiReplay()
        #expect(anti.add([1, 2, 3]))
        #expect(!anti.add([1, 2, 3]))
        #expect(anti.add([1, 2, 4]))
        #expect(anti.count == 2)
    }

    @Test("bounded: beyond its capacity it forgets the oldest keys first")
    func bounded() throws {
        let anti = try TLSAntiReplay(capacity: 2)
        #expect(anti.add([1]) && anti.add([2]) && anti.add([3]))
        #expect(anti.count == 2)
        #expect(!anti.add([3]) && !anti.add([2]), "the two newest are remembered")
        #expect(anti.add([1]), "the oldest was forgotten")
    }
}
