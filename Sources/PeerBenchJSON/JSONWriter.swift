/// The one JSON output path of the project: every document PeerBench writes (records,
/// samples, manifests, compare, baseline and report data) is a `JSONValue` (typed values
/// through `JSONCoding.encode`) written here, whole or, for documents too large to hold,
/// a piece at a time through `JSONStreamWriter`.
public enum JSONLayout: Sendable {
    /// One line, `"key":value`.
    case compact
    /// Two-space indentation, `"key": value`, one member or element per line.
    case pretty
}

extension JSONValue {
    /// Compact JSON text: one line, keys in their stored order. Used for JSONL records.
    public var compactText: String { text(.compact) }

    /// Indented JSON text for files people read (manifest.json), ending in a newline.
    public var prettyText: String { text(.pretty) + "\n" }

    /// The text in `layout`; `sortedKeys` orders every object's keys by their UTF-8 bytes
    /// (documents built from dictionaries, whose order would differ between runs).
    public func text(_ layout: JSONLayout, sortedKeys: Bool = false) -> String {
        var out: [UInt8] = []
        write(to: &out, layout: layout, sortedKeys: sortedKeys, level: 0)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the value's text to `out`; `level` is the indentation of the line it starts on.
    public func write(to out: inout [UInt8], layout: JSONLayout, sortedKeys: Bool, level: Int) {
        let pretty = layout == .pretty
        switch self {
        case .null: out += "null".utf8
        case .bool(let b): out += (b ? "true" : "false").utf8
        case .number(let n): JSONNumberText.append(n, to: &out)
        case .string(let s): JSONValue.escape(s, into: &out)
        case .array(let a):
            if a.isEmpty {
                out += "[]".utf8
                return
            }
            out.append(UInt8(ascii: "["))
            for (k, v) in a.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                if pretty { JSONValue.newline(&out, level + 1) }
                v.write(to: &out, layout: layout, sortedKeys: sortedKeys, level: level + 1)
            }
            if pretty { JSONValue.newline(&out, level) }
            out.append(UInt8(ascii: "]"))
        case .object(let o):
            if o.isEmpty {
                out += "{}".utf8
                return
            }
            out.append(UInt8(ascii: "{"))
            let members = sortedKeys ? o.members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) } : o.members
            for (k, m) in members.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                if pretty { JSONValue.newline(&out, level + 1) }
                JSONValue.escape(m.key, into: &out)
                out += (pretty ? ": " : ":").utf8
                m.value.write(to: &out, layout: layout, sortedKeys: sortedKeys, level: level + 1)
            }
            if pretty { JSONValue.newline(&out, level) }
            out.append(UInt8(ascii: "}"))
        }
    }

    static func newline(_ out: inout [UInt8], _ level: Int) {
        guard 1 + 2 * level <= indents.utf8CodeUnitCount else {
            out.append(UInt8(ascii: "\n"))
            out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * level))
            return
        }
        out.append(contentsOf: UnsafeBufferPointer(start: indents.utf8Start, count: 1 + 2 * level))
    }

    /// A newline and the indentation of the first 16 levels, whose start a pretty
    /// document copies once per member: static text, so no array is retained for it.
    static let indents: StaticString = "\n                                "

    /// Whole numbers print without a fraction; others with up to 17 significant digits.
    public static func format(_ n: Double) -> String {
        guard n.isFinite else { return "null" }
        // Every integer a double holds exactly (up to 2^53) prints as an integer.
        if n == n.rounded(), abs(n) <= 9_007_199_254_740_992 { return String(Int64(n)) }
        return "\(n)"
    }

    /// `null`, as bytes (a String's UTF-8 view would be appended through its generic path).
    static func appendNull(_ out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: nullText.utf8Start, count: nullText.utf8CodeUnitCount))
    }

    private static let nullText: StaticString = "null"

    static func escape(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most strings (keys, labels, verdicts) need no escape: copied whole, from their
        // contiguous bytes (a small string's on the stack), after a scan by index.
        var s = s
        let plain = s.withUTF8 { b in
            var k = 0
            // Eight bytes a step (`TapeScanner.specialBytes`), then the rest one at a time.
            if let p = b.baseAddress {
                while k + 8 <= b.count {
                    if TapeScanner.specialBytes(UnsafeRawPointer(p + k).loadUnaligned(as: UInt64.self)) != 0 { return false }
                    k += 8
                }
            }
            while k < b.count {
                let u = b[k]
                if u < 0x20 || u == UInt8(ascii: "\"") || u == UInt8(ascii: "\\") { return false }
                k += 1
            }
            out.append(contentsOf: b)
            return true
        }
        if plain {
            out.append(UInt8(ascii: "\""))
            return
        }
        for u in s.utf8 {
            switch u {
            case UInt8(ascii: "\""): out += #"\""#.utf8
            case UInt8(ascii: "\\"): out += #"\\"#.utf8
            case UInt8(ascii: "\n"): out += #"\n"#.utf8
            case UInt8(ascii: "\r"): out += #"\r"#.utf8
            case UInt8(ascii: "\t"): out += #"\t"#.utf8
            case 0..<0x20:
                out += #"\u00"#.utf8
                out.append(Self.hexDigits[Int(u >> 4)])
                out.append(Self.hexDigits[Int(u & 0xF)])
            default: out.append(u)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    static let hexDigits = Array("0123456789abcdef".utf8)
}
