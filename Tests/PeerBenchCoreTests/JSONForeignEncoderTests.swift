import Foundation
import PeerBenchCore
import Testing

/// Swift Testing encodes Codable test arguments with Foundation's encoder to name test
/// cases; a JSONValue holding an object used to recurse until the stack overflowed.
@Suite struct JSONForeignEncoderTests {
    @Test func foundationEncodesNestedObjects() throws {
        let v: JSONValue = ["a": ["b": 1], "c": [true, nil, "x"]]
        let data = try JSONEncoder().encode(v)
        let back = try JSONDecoder().decode(JSONValue.self, from: data)
        #expect(back["a"] == v["a"] && back["c"] == v["c"] && back.objectValue?.keys.count == 2, "Foundation does not keep key order")
    }
}
