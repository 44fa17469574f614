import Foundation
import PeerBenchCore
import PeerBenchPlugin
import Testing

@Suite struct JSONParserTests {
    @Test func parsesAndKeepsKeyOrder() throws {
        let v = try JSONParser.parse(#"{"b": 1, "a": [true, null, "x\u00e9\n"], "c": -2.5e1}"#)
        #expect(v.objectValue?.keys == ["b", "a", "c"])
        #expect(v["a"] == [true, nil, "xé\n"])
        #expect(v["c"]?.doubleValue == -25)
        #expect(v.compactText == #"{"b":1,"a":[true,null,"xé\n"],"c":-25}"#)
    }

    @Test func reportsLineAndColumn() {
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse("{\n  \"a\": 1,\n  \"b\": }") }
        do { _ = try JSONParser.parse("{\n  \"a\": 1,\n  \"b\": }") } catch {
            #expect(error.line == 3)
            #expect(error.column == 8)
            #expect(error.description.contains("expected a value"))
        }
    }

    @Test func rejectsDuplicateKeysTrailingCommasAndGarbage() {
        for bad in [#"{"a": 1, "a": 2}"#, "[1, 2,]", "{} x", "01", #""\x""#, "[1 2]", ""] {
            #expect(throws: JSONSyntaxError.self, "\(bad)") { try JSONParser.parse(bad) }
        }
    }

    /// Duplicate keys are found whatever their spelling: 400 objects of random keys
    /// (short, alike, some escaped as `\u00XX`), checked against a Set of the keys.
    @Test func duplicateKeysAgainstASetOfTheKeys() {
        var random = SeededRandom(seed: 7, stream: 0)
        let alphabet = Array("abp059_".utf8)
        var rejected = 0
        for _ in 0..<400 {
            let count = 1 + Int(random.next() % 40)
            var keys: [String] = [], text = "{"
            for k in 0..<count {
                let length = 1 + Int(random.next() % 4)
                let key = String(decoding: (0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }, as: UTF8.self)
                keys.append(key)
                // One key in five spelled with an escape for its first character.
                let spelled = random.next() % 5 == 0
                    ? String(format: "\\u%04x", key.utf8.first!) + key.dropFirst() : key
                text += (k > 0 ? ", " : "") + "\"\(spelled)\": \(k)"
            }
            text += "}"
            let duplicated = Set(keys).count < keys.count
            do {
                let v = try JSONParser.parse(text)
                #expect(!duplicated, "\(text) has a duplicate key but parsed")
                #expect(v.objectValue?.keys == keys)
            } catch {
                #expect(duplicated, "\(text): \(error)")
                #expect(error.description.contains("duplicate key"), "\(error)")
                rejected += 1
            }
        }
        // Both outcomes occur often enough for the test to mean something.
        #expect(rejected > 50 && rejected < 350, "\(rejected) of 400 rejected")
    }

    @Test func numbersRoundTripAsIntegersWhenWhole() {
        #expect(JSONValue.number(16384).compactText == "16384")
        #expect(JSONValue.number(0.25).compactText == "0.25")
        #expect(JSONValue.number(1e20).compactText == "1e+20")
    }
}
