import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchTestbed
import Testing

/// The one hex codec (keys, digests, key files): strict, round-tripping.
struct HexTests {
    @Test func roundTripsEveryByteValue() {
        let all = (0...255).map(UInt8.init)
        let text = Hex.encode(all)
        #expect(text.hasPrefix("000102") && text.hasSuffix("fdfeff") && text.count == 512)
        #expect(Hex.decode(text) == all)
        #expect(Hex.decode(text.uppercased()) == all)
    }

    @Test(arguments: ["+f", "0x", " 0", "0", "abc", "zz", "0g", "-1"])
    func refusesAnythingButPairsOfDigits(_ text: String) {
        #expect(Hex.decode(text) == nil, "\(text)")
    }

    @Test func aCountIsAnExactLength() {
        #expect(Hex.decode("00ff", count: 2) == [0, 255])
        #expect(Hex.decode("00ff", count: 3) == nil)
        #expect(CellDataKey.parse(String(repeating: "ab", count: 32)) == [UInt8](repeating: 0xab, count: 32))
        #expect(CellDataKey.parse("+" + String(repeating: "a", count: 63)) == nil, "UInt8(_:radix:) took a sign here")
    }
}
