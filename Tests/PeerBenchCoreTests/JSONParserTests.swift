import Foundation
import PeerBenchCore
import Testing

@testable import PeerBenchJSON
@testable import PeerBenchPlugin
@testable import PeerBenchSystem

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

    /// Numbers the exact fast path cannot take (16 and more digits, exponents) are read
    /// by `strtod` on the stack: each reads as the standard library's `Double(String)`
    /// reads it and as the double it was printed from, for random doubles of every
    /// magnitude, their 17-significant-digit and exponent forms, and the extremes.
    @Test func longNumbersReadAsTheStandardLibraryReadsThem() throws {
        var rng = SeededRandom(seed: 17)
        var texts = [
            "0.30000000000000004", "1.7976931348623157e308", "5e-324", "2.2250738585072014e-308", "1e-400", "-0.0",
            "123456789012345678901234567890", "9007199254740993", "0.1000000000000000055511151231257827", "1E+2", "4.9e-324",
        ]
        for _ in 0..<20_000 {
            let v = Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &rng))
            if v.isFinite { texts.append("\(v)") }
            let w = Double.random(in: 0...100, using: &rng) + Double(Int.random(in: 0...1000, using: &rng))
            texts.append("\(w)")
            texts.append(String(format: "%.17g", w))
        }
        for text in texts {
            let parsed = try JSONParser.parse(text)
            guard case .number(let v) = parsed else {
                Issue.record("\(text) did not read as a number")
                continue
            }
            let expected = Double(text)!
            #expect(v.bitPattern == expected.bitPattern, "\(text)")
        }
    }

    /// Strings are scanned eight bytes at a time: a quote, a backslash escape, a control
    /// character or a multi-byte character at every offset of strings of 0 to 40 bytes
    /// (each position in and across an 8-byte word, and in the input's last bytes,
    /// where the scan goes byte by byte) reads as it should, or fails with its column.
    @Test func stringsReadTheSameAtEveryOffset() throws {
        for length in 0...40 {
            for at in 0...length {
                let head = String(repeating: "a", count: at), tail = String(repeating: "b", count: length - at)
                #expect(try JSONParser.parse("\"\(head)\\\"\(tail)\"") == .string(head + "\"" + tail))
                #expect(try JSONParser.parse("\"\(head)\\\\n\(tail)\"") == .string(head + "\\n" + tail))
                #expect(try JSONParser.parse("\"\(head)é€\(tail)\"") == .string(head + "é€" + tail))
                #expect(try JSONParser.parse("[\"\(head)\",\"\(tail)\"]  ") == .array([.string(head), .string(tail)]))
                do {
                    _ = try JSONParser.parse("\"\(head)\u{01}\(tail)\"")
                    Issue.record("a raw control character at \(at) of \(length) was accepted")
                } catch {
                    #expect(error.column == at + 2 && error.message.contains("control character"), "\(error)")
                }
                #expect(throws: JSONSyntaxError.self) { try JSONParser.parse("\"\(head)\(tail)") }
            }
        }
    }

    /// Strings are written eight bytes at a time too: a quote, a backslash, a control
    /// character or a multi-byte character at every offset of 0 to 40 bytes is escaped
    /// as Foundation's encoder escapes it (or left as it is), and reads back the same.
    @Test func stringsWriteTheSameAtEveryOffset() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        for length in 0...40 {
            for at in 0...length {
                let head = String(repeating: "a", count: at), tail = String(repeating: "b", count: length - at)
                for special in ["\"", "\\", "\n", "\u{01}", "\u{1f}", "é€", "/", ""] {
                    let s = head + special + tail
                    var out: [UInt8] = []
                    JSONValue.escape(s, into: &out)
                    let text = String(decoding: out, as: UTF8.self)
                    #expect(try JSONParser.parse(text) == .string(s), "\(text)")
                    let foundation = String(decoding: try encoder.encode(s), as: UTF8.self)
                    #expect(text.lowercased() == foundation.lowercased(), "\(text) against \(foundation)")
                }
            }
        }
    }

    /// Duplicate keys are found whatever their spelling: 400 objects of random keys
    /// (short, alike, some escaped as `\u00XX`), checked against a Set of the keys.
    @Test func duplicateKeysAgainstASetOfTheKeys() {
        var random = SeededRandom(seed: 7, stream: 0)
        let alphabet = Array("abp059_".utf8)
        checkDuplicates { () -> [(key: String, spelled: String)] in
            (0..<1 + Int(random.next() % 40)).map { _ in
                let length = 1 + Int(random.next() % 4)
                let key = String(decoding: (0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }, as: UTF8.self)
                // One key in five spelled with an escape for its first character.
                return (key, random.next() % 5 == 0 ? String(format: "\\u%04x", key.utf8.first!) + key.dropFirst() : key)
            }
        }
    }

    /// Keys of 7, 8, 9 and 16 bytes that differ in one byte anywhere (the fingerprint
    /// reads a key's first and last eight bytes as words): every duplicate is found, no
    /// two different keys are taken for one.
    @Test func duplicateLongKeysAgainstASetOfTheKeys() {
        var random = SeededRandom(seed: 11, stream: 0)
        checkDuplicates { () -> [(key: String, spelled: String)] in
            (0..<1 + Int(random.next() % 12)).map { _ in
                let length = [7, 8, 9, 16][Int(random.next() % 4)]
                var bytes = [UInt8](repeating: UInt8(ascii: "k"), count: length)
                bytes[Int(random.next() % UInt64(length))] = random.next() % 2 == 0 ? UInt8(ascii: "a") : UInt8(ascii: "b")
                let key = String(decoding: bytes, as: UTF8.self)
                return (key, key)
            }
        }
    }

    /// 400 objects of the keys `object()` makes (each as spelled in the text): parsed
    /// when the keys are distinct, refused as a duplicate key when not.
    func checkDuplicates(_ object: () -> [(key: String, spelled: String)]) {
        var rejected = 0
        for _ in 0..<400 {
            let members = object()
            let keys = members.map(\.key)
            let text = "{" + members.enumerated().map { "\"\($0.element.spelled)\": \($0.offset)" }.joined(separator: ", ") + "}"
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

    /// Numbers of up to 19 significant digits with any exponent (`EiselLemire`'s range
    /// and past it) read bit for bit as the C library reads them (`Double(String)`):
    /// the shortest texts of 200 000 random doubles of every magnitude, 100 000 random
    /// significands of 16 to 19 digits with exponents from -60 to 80, and 20 000 odd
    /// integers between 2^53 and 2^54 (each exactly halfway between two doubles, scaled
    /// by powers of ten), which must round to the even one.
    @Test func longNumbersReadAsTheCLibraryReadsThem() {
        var random = SeededRandom(seed: 5, stream: 0)
        var texts: [String] = [
            "9007199254740993", "9007199254740995", "1e23", "8.988465674311579e307", "2.2250738585072014e-308",
            "4.9406564584124654e-324", "1.7976931348623157e308", "1.7976931348623159e308", "123456789012345678e-45",
        ]
        while texts.count < 200_000 {
            let d = Double(bitPattern: random.next() & 0x7FFF_FFFF_FFFF_FFFF)
            if d.isFinite { texts.append("\(d)") }
        }
        for _ in 0..<100_000 {
            let digits = 16 + Int(random.next() % 4)
            var text = String(1 + random.next() % 9)
            for _ in 1..<digits { text += String(random.next() % 10) }
            let point = Int(random.next() % UInt64(digits + 1))
            if point < digits { text.insert(".", at: text.index(text.startIndex, offsetBy: max(point, 1))) }
            texts.append(text + "e\(Int(random.next() % 141) - 60)")
        }
        for _ in 0..<20_000 {
            let halfway = (UInt64(1) << 53) + 2 * (random.next() % (UInt64(1) << 51)) + 1
            texts.append(String(halfway) + String(repeating: "0", count: Int(random.next() % 4)))
        }
        var wrong: [String] = []
        for text in texts {
            let read = Array(text.utf8).withUnsafeBufferPointer { JSONTape.parseNumber($0) }
            if read.bitPattern != Double(text)!.bitPattern { wrong.append(text) }
            if text.first != "-" {
                let negated = Array(("-" + text).utf8).withUnsafeBufferPointer { JSONTape.parseNumber($0) }
                if negated.bitPattern != (-Double(text)!).bitPattern { wrong.append("-" + text) }
            }
        }
        let misread = wrong.count
        #expect(misread == 0, "read otherwise: \(wrong.prefix(5))")
    }

    @Test func numbersRoundTripAsIntegersWhenWhole() {
        #expect(JSONValue.number(16384).compactText == "16384")
        #expect(JSONValue.number(0.25).compactText == "0.25")
        #expect(JSONValue.number(1e20).compactText == "1e+20")
    }

    /// Numbers are written as bytes, not Strings (`JSONNumberText`): the text is the one
    /// `JSONValue.format` makes (String(Int64) for whole numbers, `"\(n)"` otherwise) for
    /// random doubles of every magnitude and sign, whole numbers up to 2^53 and past it,
    /// negative zero, the smallest subnormal and the non-finite values.
    @Test func numberBytesAreTheFormattedText() {
        var rng = SeededRandom(seed: 31)
        var values: [Double] = [
            0, -0.0, 1, -1, 9, 10, 99, 100, 12345, -9_007_199_254_740_992, 9_007_199_254_740_992,
            9_007_199_254_740_994, 1e20, 0.1, 0.30000000000000004, 5e-324, .greatestFiniteMagnitude,
            -.greatestFiniteMagnitude, .infinity, -.infinity, .nan, 1e-7, 123456.789, 2.5e15,
        ]
        for _ in 0..<20_000 {
            let bits = UInt64.random(in: 0...UInt64.max, using: &rng)
            values.append(Double(bitPattern: bits))
            values.append(Double.random(in: -1e6...1e6, using: &rng))
            values.append(Double(Int64.random(in: -1_000_000_000_000...1_000_000_000_000, using: &rng)))
            values.append((Double.random(in: 0...1000, using: &rng) * 1000).rounded() / 1000)
        }
        var out: [UInt8] = [UInt8(ascii: "[")]
        for v in values {
            let before = out.count
            JSONNumberText.append(v, to: &out)
            let text = String(decoding: out[before...], as: UTF8.self)
            let expected = v.isFinite ? (v == v.rounded() && abs(v) <= 9_007_199_254_740_992 ? String(Int64(v)) : "\(v)") : "null"
            #expect(text == expected, "\(v.bitPattern)")
            #expect(JSONValue.format(v) == expected)
        }
        #expect(out.first == UInt8(ascii: "["), "appends, keeping what was there")
    }
}
