/// A pretty-printed JSON document written a piece at a time (compare's, whose scenarios
/// are written as they are built): containers are opened and closed explicitly, values
/// inside them are `JSONValue`s written by the one writer (JSONWriter.swift), or numbers and strings
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
