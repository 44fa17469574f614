/// A parsed JSON document as a flat list of tokens over its bytes: the one JSON tokenizer
/// of the project (`JSONParser` builds `JSONValue` trees from it).
///
/// Parsing validates the whole document (RFC 8259, as strict as `JSONParser`) but
/// allocates only the token list: strings and numbers stay bytes until read. A reader
/// that wants five fields of a 2 kB record (compare, report, merge over 200 000
/// records) reads them through `JSONTape.Node` without building the other ninety.
public final class JSONTape: Sendable {
    public enum Kind: UInt8, Sendable {
        case null, `true`, `false`, number, string, array, object
    }

    /// One value (or an object's key, which is a `.string`). `start..<end` are its bytes
    /// (a string's without the quotes); `next` is the token after the value and all it
    /// contains, so a reader skips a whole array or object in one step.
    struct Token: Sendable {
        var kind: Kind
        /// A string with a backslash escape: read through the decoder, not as raw bytes.
        var escaped: Bool
        var start: Int32
        var end: Int32
        var next: Int32
    }

    let bytes: ArraySlice<UInt8>
    let tokens: [Token]

    /// Parses one complete document; trailing content other than white space is an error.
    /// (A class: the `Node`s of a tape share it with one reference count.)
    public init(parsing bytes: ArraySlice<UInt8>) throws(JSONSyntaxError) {
        self.bytes = bytes
        // About one token per 12 bytes in a record: the scanner's buffer grows at most
        // once for most lines, and the array is made from it in one copy.
        tokens = try bytes.withUnsafeBufferPointer { (b) throws(JSONSyntaxError) in
            var scanner = TapeScanner(bytes: b, capacity: bytes.count / 8 + 16)
            defer { scanner.tokens.deallocate() }
            try scanner.document()
            return scanner.tokens.array()
        }
    }

    public convenience init(parsing bytes: [UInt8]) throws(JSONSyntaxError) { try self.init(parsing: bytes[...]) }

    /// The document's top-level value.
    public var root: Node { Node(tape: self, index: 0) }

    /// One value of the tape.
    public struct Node: Sendable {
        let tape: JSONTape
        let index: Int

        var token: Token { tape.tokens[index] }
        public var kind: Kind { token.kind }
        public var isNull: Bool { kind == .null }

        /// The member `key` of an object; nil when absent or when this is not an object.
        public subscript(key: String) -> Node? {
            tape.member(key, of: index).map { Node(tape: tape, index: $0) }
        }

        /// Each member of an object in order with its key's UTF-8 bytes, without making a
        /// String of every key: for readers that take many members in one pass.
        public func forEachMember(_ body: (UnsafeBufferPointer<UInt8>, Node) -> Void) {
            tape.forEachMember(of: index) { key, value in body(key, Node(tape: tape, index: value)) }
        }

        /// Elements of an array in order; empty for other kinds.
        public var elements: [Node] {
            let t = token
            guard t.kind == .array else { return [] }
            var out: [Node] = []
            var i = index + 1
            while i < Int(t.next) {
                out.append(Node(tape: tape, index: i))
                i = Int(tape.tokens[i].next)
            }
            return out
        }

        public var string: String? { tape.string(at: index) }
        public var bool: Bool? { kind == .true ? true : kind == .false ? false : nil }

        /// A number; nil for other kinds and for numbers a double cannot hold (1e999).
        public var double: Double? { tape.double(at: index) }

        /// The number as an integer when it is a whole number that fits exactly.
        public var int: Int? { tape.int(at: index) }

        /// The value as a tree.
        public var value: JSONValue { tape.value(at: index).value }
    }

    // MARK: Reading by token index
    // What `Node` reads, addressed by the index of a value's token (`root` is 0): a reader
    // of 200 000 lines (`RecordLine`) keeps integers, where each `Node` it made and copied
    // would count a reference to the tape.

    /// The token index of the document's top-level value.
    public static let rootIndex = 0

    /// The kind of the value at token `i`.
    public func kind(at i: Int) -> Kind { tokens[i].kind }

    /// The value of member `key` of the object at `i`; nil when absent or when `i` is not an object.
    public func member(_ key: String, of i: Int) -> Int? {
        var k = key
        return k.withUTF8 { member($0, of: i) }
    }

    /// The value of the member whose key is these UTF-8 bytes.
    public func member(_ want: UnsafeBufferPointer<UInt8>, of i: Int) -> Int? {
        let t = tokens[i]
        guard t.kind == .object else { return nil }
        var k = i + 1
        while k < Int(t.next) {
            if keyEquals(tokens[k], want) { return k + 1 }
            k = Int(tokens[k + 1].next)
        }
        return nil
    }

    /// Each member of the object at `i` in order: its key's UTF-8 bytes and its value's index.
    public func forEachMember(of i: Int, _ body: (UnsafeBufferPointer<UInt8>, Int) -> Void) {
        let t = tokens[i]
        guard t.kind == .object else { return }
        bytes.withUnsafeBufferPointer { b in
            var k = i + 1
            while k < Int(t.next) {
                let key = tokens[k]
                if key.escaped {
                    var text = string(key)
                    text.withUTF8 { body($0, k + 1) }
                } else {
                    body(UnsafeBufferPointer(rebasing: b[Int(key.start)..<Int(key.end)]), k + 1)
                }
                k = Int(tokens[k + 1].next)
            }
        }
    }

    /// The string at `i`; nil for other kinds.
    public func string(at i: Int) -> String? {
        let t = tokens[i]
        return t.kind == .string ? string(t) : nil
    }

    /// `body` with the UTF-8 bytes of the string at `i` (unescaped), without making a
    /// String of a plain one; nil for other kinds.
    public func withUTF8<R>(ofStringAt i: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R? {
        let t = tokens[i]
        guard t.kind == .string else { return nil }
        if t.escaped {
            var text = string(t)
            return text.withUTF8(body)
        }
        return bytes.withUnsafeBufferPointer { b in body(UnsafeBufferPointer(rebasing: b[Int(t.start)..<Int(t.end)])) }
    }

    /// The number at `i`; nil for other kinds and for numbers a double cannot hold (1e999).
    public func double(at i: Int) -> Double? {
        let t = tokens[i]
        guard t.kind == .number else { return nil }
        let v = number(t)
        return v.isFinite ? v : nil
    }

    /// The number at `i` as an integer when it is a whole number that fits exactly.
    public func int(at i: Int) -> Int? {
        guard let n = double(at: i), n == n.rounded(), abs(n) <= 9_007_199_254_740_992 else { return nil }
        return Int(n)
    }

    /// The value at `i` as a `Node`.
    public func node(at i: Int) -> Node { Node(tape: self, index: i) }

    func keyEquals(_ t: Token, _ want: UnsafeBufferPointer<UInt8>) -> Bool {
        if t.escaped { return string(t).utf8.elementsEqual(want) }
        let n = Int(t.end - t.start)
        guard n == want.count else { return false }
        return bytes.withUnsafeBufferPointer { b in
            n == 0 || memcmpBytes(b.baseAddress! + Int(t.start), want.baseAddress!, n)
        }
    }

    func string(_ t: Token) -> String {
        // Through the bytes' buffer, not a slice of the slice: a slice counts a reference.
        bytes.withUnsafeBufferPointer { b in
            let raw = UnsafeBufferPointer(rebasing: b[Int(t.start)..<Int(t.end)])
            return t.escaped ? JSONTape.unescape(raw) : String(decoding: raw, as: UTF8.self)
        }
    }

    func number(_ t: Token) -> Double {
        bytes.withUnsafeBufferPointer { b in
            JSONTape.parseNumber(UnsafeBufferPointer(rebasing: b[Int(t.start)..<Int(t.end)]))
        }
    }

    /// The tree of the value at token `i`, and the token after it.
    func value(at i: Int) -> (value: JSONValue, next: Int) {
        let t = tokens[i]
        switch t.kind {
        case .null: return (.null, i + 1)
        case .true: return (.bool(true), i + 1)
        case .false: return (.bool(false), i + 1)
        case .number: return (.number(number(t)), i + 1)
        case .string: return (.string(string(t)), i + 1)
        case .array:
            var a: [JSONValue] = []
            var j = i + 1
            while j < Int(t.next) {
                let (v, n) = value(at: j)
                a.append(v)
                j = n
            }
            return (.array(a), Int(t.next))
        case .object:
            var o = JSONObject()
            var j = i + 1
            while j < Int(t.next) {
                let key = string(tokens[j])
                let (v, n) = value(at: j + 1)
                o.appendRaw(key, v)
                j = n
            }
            return (.object(o), Int(t.next))
        }
    }
}

@inline(__always)
private func memcmpBytes(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ n: Int) -> Bool {
    for k in 0..<n where a[k] != b[k] { return false }
    return true
}
