import Foundation
import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import Testing

/// JSONValue through Foundation's JSONEncoder (Swift Testing does this with Codable
/// test arguments): an object must not recurse into itself.
@Suite(.timeLimit(.minutes(1))) struct JSONForeignEncoderTests {
    @Test func objectsEncodeThroughFoundation() throws {
        let value: JSONValue = ["rateMbps": 0, "nested": ["a": [1, "x", nil]]]
        let data = try JSONEncoder().encode(value)
        // A foreign decoder does not promise the members' order: compare member by member.
        let back = try JSONDecoder().decode(JSONValue.self, from: data)
        #expect(back.objectValue?.map(\.key).sorted() == ["nested", "rateMbps"])
        #expect(back["rateMbps"] == 0)
        #expect(back["nested"]?["a"] == [1, "x", nil])
    }
}
