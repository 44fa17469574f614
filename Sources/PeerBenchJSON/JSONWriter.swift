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

/// A pretty-printed JSON document written a piece at a time (compare's, whose scenarios
/// are written as they are built): containers are opened and closed explicitly, values
/// inside them are `JSONValue`s written by the one writer above, or numbers and strings
/// written straight in (hot documents skip building a tree), in the same layout as
/// `prettyText`. Members appear in the order written: a document whose keys must be
/// sorted writes them sorted (debug builds check it). `take()` hands over what is
/// written so far.
public struct JSONStreamWriter: Sendable {
    private var out: [UInt8] = []
    /// Members or elements written in the innermost open container, and in each one
    /// around it (a stack changed only on open and close, not for every member).
    private var count = 0
    private var outerCounts: [Int] = []
    /// Containers open.
    private var open = 0
    /// The indentation level of the first value written: a fragment made for its place
    /// in a larger document (`write(_:text:)`) starts deeper than 0.
    private let base: Int
    private let sortedKeys: Bool
    #if DEBUG
        /// The last key written in each open container, to check the order.
        private var lastKeys: [String?] = []
    #endif

    /// `base`: the level the writer's first value sits at (its `depth` when written into
    /// another writer); 0 for a whole document, which ends in a newline.
    public init(sortedKeys: Bool = false, base: Int = 0) {
        self.sortedKeys = sortedKeys
        self.base = base
    }

    /// Opens an object, as the member `key` of the enclosing object (nil: an element or the document).
    public mutating func openObject(_ key: String? = nil) { openContainer(key, UInt8(ascii: "{")) }

    /// Opens an array, as the member `key` of the enclosing object (nil: an element or the document).
    public mutating func openArray(_ key: String? = nil) { openContainer(key, UInt8(ascii: "[")) }

    /// Writes `value` as the member `key` (nil: an element or the document).
    public mutating func write(_ key: String?, _ value: JSONValue) {
        start(key)
        value.write(to: &out, layout: .pretty, sortedKeys: sortedKeys, level: depth)
    }

    /// Writes a number (null for nil or a value JSON cannot hold) as the member `key`
    /// (nil: an element), as `JSONValue.number` would be written.
    public mutating func write(_ key: String?, number: Double?) {
        start(key)
        if let number { JSONNumberText.append(number, to: &out) } else { JSONValue.appendNull(&out) }
    }

    /// Writes a string (null for nil) as the member `key` (nil: an element).
    public mutating func write(_ key: String?, string: String?) {
        start(key)
        if let string { JSONValue.escape(string, into: &out) } else { JSONValue.appendNull(&out) }
    }

    /// Writes as the member `key` (nil: an element) a value whose text `JSONValue.write`
    /// already made at `level` (this writer's `depth`), on another thread, say.
    public mutating func write(_ key: String?, text: [UInt8]) {
        start(key)
        out += text
    }

    /// The `level` of a value written into the innermost open container.
    public var depth: Int { base + open }

    /// Closes the innermost container (`{}` or `[]` when it stayed empty).
    public mutating func close(_ bracket: Character) {
        let n = count
        count = outerCounts.removeLast()
        open -= 1
        #if DEBUG
            lastKeys.removeLast()
        #endif
        if n > 0 { JSONValue.newline(&out, depth) }
        out.append(UInt8(ascii: bracket == "}" ? "}" : "]"))
        if open == 0, base == 0 { out.append(UInt8(ascii: "\n")) }
    }

    /// Room for `bytes` more bytes of text, for a writer that knows roughly how much it
    /// will write: the buffer is not copied again and again as it doubles.
    public mutating func reserveCapacity(_ bytes: Int) { out.reserveCapacity(out.count + bytes) }

    /// The text written since the last call.
    public mutating func take() -> [UInt8] {
        defer { out.removeAll(keepingCapacity: true) }
        return out
    }

    private mutating func openContainer(_ key: String?, _ bracket: UInt8) {
        start(key)
        out.append(bracket)
        outerCounts.append(count)
        count = 0
        open += 1
        #if DEBUG
            lastKeys.append(nil)
        #endif
    }

    private mutating func start(_ key: String?) {
        guard open > 0 else { return }
        if count > 0 { out.append(UInt8(ascii: ",")) }
        count += 1
        JSONValue.newline(&out, depth)
        if let key {
            #if DEBUG
                if sortedKeys, let last = lastKeys[lastKeys.count - 1] {
                    assert(last.utf8.lexicographicallyPrecedes(key.utf8), "JSONStreamWriter: key \(key) written after \(last) in a sorted document")
                }
                lastKeys[lastKeys.count - 1] = key
            #endif
            JSONValue.escape(key, into: &out)
            out.append(UInt8(ascii: ":"))
            out.append(UInt8(ascii: " "))
        }
    }
}
