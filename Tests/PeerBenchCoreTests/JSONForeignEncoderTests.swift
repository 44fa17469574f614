import Foundation
import PeerBenchCore
import Testing

/// JSONValue through Foundation's JSONEncoder (Swift Testing does this with Codable
/// test arguments): an object must not recurse into itself.
@Suite(.timeLimit(.minutes(1))) struct JSONForeignEncoderTests {
    @Test func objectsEncodeThroughFoundation() throws {
        let value: JSONValue = ["rateMbps": 0, "nested": ["a": [1, "x", nil]]]
        let data = try JSONEncoder().encode(value)
        #expect(try JSONDecoder().decode(JSONValue.self, from: data) == value)
    }
}
