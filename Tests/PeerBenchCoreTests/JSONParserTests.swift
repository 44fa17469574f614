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

    @Test func numbersRoundTripAsIntegersWhenWhole() {
        #expect(JSONValue.number(16384).compactText == "16384")
        #expect(JSONValue.number(0.25).compactText == "0.25")
        #expect(JSONValue.number(1e20).compactText == "1e+20")
    }
}
