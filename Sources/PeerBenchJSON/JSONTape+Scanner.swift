#if canImport(Glibc)
    import Glibc
#endif

/// The validating pass that fills a `JSONTape`: RFC 8259, nesting up to 512 levels, no
/// duplicate keys, numbers a double can hold; the first error with its line and column.
struct TapeScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var tokens: TokenBuffer
    var i = 0

    init(bytes: UnsafeBufferPointer<UInt8>, capacity: Int) {
        self.bytes = bytes
        tokens = TokenBuffer(capacity: capacity)
    }

    mutating func document() throws(JSONSyntaxError) {
        skipSpace()
        try value(depth: 0)
        skipSpace()
        if i < bytes.count { throw error("unexpected content after the end of the document") }
    }

    func error(_ message: String) -> JSONSyntaxError {
        var line = 1, column = 1
        for b in bytes[..<min(i, bytes.count)] {
            if b == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if b & 0xC0 != 0x80 {
                column += 1
            }
        }
        return JSONSyntaxError(line: line, column: column, message: message)
    }

    @inline(__always)
    mutating func skipSpace() {
        while i < bytes.count {
            let b = bytes[i]
            guard b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 else { return }
            i += 1
        }
    }

    var current: String {
        guard i < bytes.count else { return "the end of the input" }
        return "'\(String(decoding: [bytes[i]], as: UTF8.self))'"
    }

    @inline(__always)
    mutating func append(_ kind: JSONTape.Kind, _ start: Int, _ end: Int, escaped: Bool = false) {
        tokens.append(JSONTape.Token(kind: kind, escaped: escaped, start: Int32(start), end: Int32(end), next: Int32(tokens.count + 1)))
    }

    mutating func value(depth: Int) throws(JSONSyntaxError) {
        guard depth < 512 else { throw error("nesting is deeper than 512 levels") }
        guard i < bytes.count else { throw error("expected a value, found the end of the input") }
        switch bytes[i] {
        case UInt8(ascii: "{"): try object(depth: depth)
        case UInt8(ascii: "["): try array(depth: depth)
        case UInt8(ascii: "\""): try string()
        case UInt8(ascii: "t"): try literal("true", .true)
        case UInt8(ascii: "f"): try literal("false", .false)
        case UInt8(ascii: "n"): try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
        default: throw error("expected a value, found \(current)")
        }
    }

    mutating func literal(_ word: StaticString, _ kind: JSONTape.Kind) throws(JSONSyntaxError) {
        let n = word.utf8CodeUnitCount
        guard i + n <= bytes.count else { throw error("expected a value, found \(current)") }
        for k in 0..<n where bytes[i + k] != word.utf8Start[k] { throw error("expected a value, found \(current)") }
        append(kind, i, i + n)
        i += n
    }

    /// A container's token is written first and its `next` filled in at its end.
    mutating func object(depth: Int) throws(JSONSyntaxError) {
        let me = tokens.count
        append(.object, i, i)
        let open = i
        i += 1
        skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "}") {
            i += 1
            close(me, open)
            return
        }
        // Which key fingerprints the object has seen: a key whose bit is clear is new,
        // so the earlier keys are compared only on a fingerprint match, not for every key
        // (a record's 30 keys cost 30 bit tests, not 435 comparisons).
        var seen = KeyFingerprints()
        while true {
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else {
                throw error("expected a key in double quotes, found \(current)")
            }
            let keyAt = i
            try string()
            let key = tokens.count - 1
            if seen.insert(fingerprint(tokens[key])) {
                // The object's earlier keys, by the chain of their values' `next`.
                var other = me + 1
                while other < key {
                    if sameKey(tokens[other], tokens[key]) {
                        i = keyAt
                        skipToEndOfString()
                        throw error("duplicate key \"\(decoded(tokens[key]))\"")
                    }
                    other = Int(tokens[other + 1].next)
                }
            }
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else {
                throw error("expected ':' after key \"\(decoded(tokens[key]))\", found \(current)")
            }
            i += 1
            skipSpace()
            try value(depth: depth + 1)
            skipSpace()
            guard i < bytes.count else { throw error("unterminated object: expected ',' or '}'") }
            if bytes[i] == UInt8(ascii: ",") {
                i += 1
                continue
            }
            if bytes[i] == UInt8(ascii: "}") {
                i += 1
                close(me, open)
                return
            }
            throw error("expected ',' or '}' in object, found \(current)")
        }
    }

    mutating func array(depth: Int) throws(JSONSyntaxError) {
        let me = tokens.count
        append(.array, i, i)
        let open = i
        i += 1
        skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "]") {
            i += 1
            close(me, open)
            return
        }
        while true {
            skipSpace()
            try value(depth: depth + 1)
            skipSpace()
            guard i < bytes.count else { throw error("unterminated array: expected ',' or ']'") }
            if bytes[i] == UInt8(ascii: ",") {
                i += 1
                continue
            }
            if bytes[i] == UInt8(ascii: "]") {
                i += 1
                close(me, open)
                return
            }
            throw error("expected ',' or ']' in array, found \(current)")
        }
    }

    mutating func close(_ token: Int, _ open: Int) {
        tokens[token].start = Int32(open)
        tokens[token].end = Int32(i)
        tokens[token].next = Int32(tokens.count)
    }

    /// A key's fingerprint, 1..<512, from its length and its first and last eight bytes:
    /// equal keys have equal fingerprints. An escaped key (rare) gets 0: its raw bytes say
    /// nothing about what it spells (`KeyFingerprints` then compares every key from there
    /// on). With 512 of them, a record's 30 keys meet a false match about once an object,
    /// where 128 fingerprints of three bytes each sent about a sixth of the keys to the
    /// comparison with every earlier key.
    @inline(__always)
    func fingerprint(_ t: JSONTape.Token) -> Int {
        let start = Int(t.start), n = Int(t.end - t.start)
        guard !t.escaped, n > 0, let base = bytes.baseAddress else { return 0 }
        var first: UInt64 = 0, last: UInt64 = 0
        if n >= 8 {
            first = UnsafeRawPointer(base + start).loadUnaligned(as: UInt64.self)
            last = UnsafeRawPointer(base + start + n - 8).loadUnaligned(as: UInt64.self)
        } else {
            for k in 0..<n { first |= UInt64(bytes[start + k]) << UInt64(8 * k) }
        }
        let h = (first &* 0x9E37_79B9_7F4A_7C15) ^ (last &* 0xC2B2_AE3D_27D4_EB4F) ^ (UInt64(n) &* 0x1656_67B1_9E37_79F9)
        return 1 + Int(((h >> 32) &* 511) >> 32)
    }

    func sameKey(_ a: JSONTape.Token, _ b: JSONTape.Token) -> Bool {
        if a.escaped || b.escaped { return decoded(a) == decoded(b) }
        let n = Int(a.end - a.start)
        guard n == Int(b.end - b.start) else { return false }
        for k in 0..<n where bytes[Int(a.start) + k] != bytes[Int(b.start) + k] { return false }
        return true
    }

    func decoded(_ t: JSONTape.Token) -> String {
        let raw = UnsafeBufferPointer(rebasing: bytes[Int(t.start)..<Int(t.end)])
        return t.escaped ? JSONTape.unescape(raw) : String(decoding: raw, as: UTF8.self)
    }

    /// Moves past the string starting at `i` (already validated): for error positions.
    mutating func skipToEndOfString() {
        i += 1
        while i < bytes.count, bytes[i] != UInt8(ascii: "\"") { i += bytes[i] == UInt8(ascii: "\\") ? 2 : 1 }
        i += 1
    }

    mutating func string() throws(JSONSyntaxError) {
        i += 1
        let start = i
        var escaped = false
        while true {
            skipPlainWords()
            guard i < bytes.count else { throw error("unterminated string") }
            let b = bytes[i]
            if b == UInt8(ascii: "\"") { break }
            if b < 0x20 { throw error("control character in string (escape it)") }
            if b != UInt8(ascii: "\\") {
                i += 1
                continue
            }
            escaped = true
            i += 1
            guard i < bytes.count else { throw error("unterminated escape") }
            let e = bytes[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                continue
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800..<0xDC00).contains(scalar) {
                    guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                        throw error("lone high surrogate in \\u escape")
                    }
                    i += 2
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw error("invalid low surrogate in \\u escape") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                guard Unicode.Scalar(scalar) != nil else { throw error("invalid \\u escape") }
            default: throw error("invalid escape '\\\(String(decoding: [e], as: UTF8.self))'")
            }
        }
        append(.string, start, i, escaped: escaped)
        i += 1
    }

    /// Moves `i` past string bytes eight at a time, to the first quote, backslash or
    /// control character (or to the last eight bytes of the input, where the byte loop
    /// finishes): a record's timestamps, errors and labels are read a word per step.
    @inline(__always)
    mutating func skipPlainWords() {
        guard let base = bytes.baseAddress else { return }
        while i + 8 <= bytes.count {
            let special = Self.specialBytes(UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
            guard special == 0 else {
                // The lowest flag is exact (a false flag only ever follows a true one);
                // words are loaded little-endian, so it is the first such byte.
                i += special.trailingZeroBitCount / 8
                return
            }
            i += 8
        }
    }

    /// 0x80 in each byte of `w` that ends or escapes a JSON string or must be escaped in
    /// one (quote, backslash, below 0x20), and possibly in bytes above one that is: zero
    /// when the eight bytes are plain string content. Shared by the tokenizer's string
    /// scan and the writer's escape check.
    @inline(__always)
    static func specialBytes(_ w: UInt64) -> UInt64 {
        zeroBytes(w ^ 0x2222_2222_2222_2222) | zeroBytes(w ^ 0x5C5C_5C5C_5C5C_5C5C) | bytesBelow0x20(w)
    }

    /// 0x80 in each byte of `w` that is zero, and possibly in bytes above one that is.
    @inline(__always)
    static func zeroBytes(_ w: UInt64) -> UInt64 {
        (w &- 0x0101_0101_0101_0101) & ~w & 0x8080_8080_8080_8080
    }

    /// 0x80 in each byte of `w` below 0x20, and possibly in bytes above one that is.
    @inline(__always)
    static func bytesBelow0x20(_ w: UInt64) -> UInt64 {
        (w &- 0x2020_2020_2020_2020) & ~w & 0x8080_8080_8080_8080
    }

    mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard i + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            guard let d = JSONTape.hexDigit(bytes[i]) else { throw error("invalid hex digit in \\u escape") }
            v = v << 4 | d
            i += 1
        }
        return v
    }

    @inline(__always)
    mutating func digits() -> Int {
        let s = i
        while i < bytes.count, bytes[i] &- UInt8(ascii: "0") < 10 { i += 1 }
        return i - s
    }

    mutating func number() throws(JSONSyntaxError) {
        let start = i
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        let intStart = i
        let n = digits()
        if n == 0 { throw error("expected digits in number") }
        if n > 1, bytes[intStart] == UInt8(ascii: "0") {
            i = intStart
            throw error("leading zeros are not allowed in numbers")
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            if digits() == 0 { throw error("expected digits after the decimal point") }
        }
        var exponent = false
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            exponent = true
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            if digits() == 0 { throw error("expected digits in the exponent") }
        }
        // Only an exponent or some 300 integer digits can take a number past a double's range.
        if exponent || n > 300, !JSONTape.parseNumber(UnsafeBufferPointer(rebasing: bytes[start..<i])).isFinite {
            i = start
            throw error("number out of range")
        }
        append(.number, start, i)
    }
}

/// A 512-bit set of key fingerprints (`TapeScanner.fingerprint`); fingerprint 0, an
/// escaped key, matches every key, before or after it.
struct KeyFingerprints {
    private var words = InlineArray<8, UInt64>(repeating: 0)

    /// Adds `f`; true when an earlier key may be the same key (compare them).
    @inline(__always)
    mutating func insert(_ f: Int) -> Bool {
        if f == 0 || words[0] & 1 != 0 {
            words[0] |= 1
            return true
        }
        let bit = UInt64(1) << UInt64(f & 63)
        let w = f >> 6
        defer { words[w] |= bit }
        return words[w] & bit != 0
    }
}

/// The scanner's growing token array: an append is a store and a count, without an
/// Array's uniqueness and capacity checks on every token. Tokens are plain values, so
/// growing moves bytes and `deallocate` is all the clean-up there is.
struct TokenBuffer {
    private var base: UnsafeMutablePointer<JSONTape.Token>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    @inline(__always)
    mutating func append(_ token: JSONTape.Token) {
        if count == capacity { grow() }
        (base + count).initialize(to: token)
        count += 1
    }

    private mutating func grow() {
        let bigger = UnsafeMutablePointer<JSONTape.Token>.allocate(capacity: capacity * 2)
        bigger.moveInitialize(from: base, count: count)
        base.deallocate()
        base = bigger
        capacity *= 2
    }

    subscript(i: Int) -> JSONTape.Token {
        get { base[i] }
        nonmutating set { base[i] = newValue }
    }

    /// The tokens as an array (one copy, at the end of a scan).
    func array() -> [JSONTape.Token] { Array(UnsafeBufferPointer(start: base, count: count)) }

    func deallocate() { base.deallocate() }
}

extension JSONTape {
    static func hexDigit(_ c: UInt8) -> UInt32? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(c - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(c - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(c - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    /// Powers of ten a double holds exactly: with a mantissa below 2^53 one multiply or
    /// divide by them is correctly rounded (Clinger's fast path).
    static let exactPowers: [Double] = (0...22).map { e in (0..<e).reduce(1.0) { p, _ in p * 10 } }

    /// A validated JSON number token as a double: short forms by the exact fast path,
    /// up to 19 significant digits by `EiselLemire`, the rest (and what it cannot
    /// decide) by the C library's correctly rounded conversion.
    static func parseNumber(_ b: UnsafeBufferPointer<UInt8>) -> Double {
        var k = 0
        let negative = b[0] == UInt8(ascii: "-")
        if negative { k = 1 }
        var mantissa: UInt64 = 0
        var digitCount = 0
        var scale = 0
        while k < b.count, b[k] &- UInt8(ascii: "0") < 10 {
            mantissa = mantissa &* 10 &+ UInt64(b[k] &- UInt8(ascii: "0"))
            digitCount += 1
            k += 1
        }
        if k < b.count, b[k] == UInt8(ascii: ".") {
            k += 1
            while k < b.count, b[k] &- UInt8(ascii: "0") < 10 {
                mantissa = mantissa &* 10 &+ UInt64(b[k] &- UInt8(ascii: "0"))
                digitCount += 1
                scale -= 1
                k += 1
            }
        }
        if k < b.count {  // an exponent (the scanner checked its form)
            k += 1
            let negativeExponent = b[k] == UInt8(ascii: "-")
            if b[k] == UInt8(ascii: "-") || b[k] == UInt8(ascii: "+") { k += 1 }
            var exponent = 0
            while k < b.count, exponent < 10_000 {
                exponent = exponent * 10 + Int(b[k] &- UInt8(ascii: "0"))
                k += 1
            }
            guard k == b.count else { return correctlyRounded(b) }  // past any double's range either way
            scale += negativeExponent ? -exponent : exponent
        }
        // Leading zeros of 0.000123 are digits too; up to 19 digits the mantissa is exact.
        guard digitCount <= 19 else { return correctlyRounded(b) }
        let v: Double
        if mantissa < 1 << 53, scale >= -22, scale <= 22 {
            // Clinger's fast path: both exact, one correctly rounded operation.
            v = scale < 0 ? Double(mantissa) / exactPowers[-scale] : Double(mantissa) * exactPowers[scale]
        } else if mantissa == 0 {
            v = 0
        } else if let x = EiselLemire.double(mantissa, scale) {
            v = x
        } else {
            return correctlyRounded(b)
        }
        return negative ? -v : v
    }

    /// The correctly rounded double of a number's text: the C library's `strtod` on a
    /// copy on the stack, which is what the standard library's `Double(String)` calls on
    /// Linux (`strtod_l` in the C locale), without a String each (a Python-written
    /// journal's 16- and 17-digit numbers all come here). Should the process's locale
    /// not read `.` as the decimal point, `strtod` stops early and `Double(String)` reads it.
    static func correctlyRounded(_ b: UnsafeBufferPointer<UInt8>) -> Double {
        #if canImport(Glibc)
            if b.count < 64 {
                let v = withUnsafeTemporaryAllocation(of: CChar.self, capacity: b.count + 1) { text -> Double? in
                    for k in 0..<b.count { text[k] = CChar(bitPattern: b[k]) }
                    text[b.count] = 0
                    var end: UnsafeMutablePointer<CChar>?
                    let v = strtod(text.baseAddress!, &end)
                    return end == text.baseAddress! + b.count ? v : nil
                }
                if let v { return v }
            }
        #endif
        return Double(String(decoding: b, as: UTF8.self)) ?? .nan
    }

    /// The text of a string token with backslash escapes (validated by the scanner).
    static func unescape<C: Collection>(_ raw: C) -> String where C.Element == UInt8, C.Index == Int {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var i = raw.startIndex
        func hex4(_ at: Int) -> UInt32 { (0..<4).reduce(0) { v, d in v << 4 | (hexDigit(raw[at + d]) ?? 0) } }
        while i < raw.endIndex {
            let b = raw[i]
            if b != UInt8(ascii: "\\") {
                out.append(b)
                i += 1
                continue
            }
            let e = raw[i + 1]
            i += 2
            switch e {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hex4(i)
                i += 4
                if (0xD800..<0xDC00).contains(scalar) {
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (hex4(i + 2) - 0xDC00)
                    i += 6
                }
                out.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
            default: out.append(e)  // \" \\ \/
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
