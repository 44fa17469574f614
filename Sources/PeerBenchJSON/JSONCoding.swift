/// Codable to and from `JSONValue`, so records, manifests and the worker wire are typed
/// values defined once, yet written with the project's own writer: keys in the order
/// a type encodes them, numbers formatted as everywhere else, and `JSONValue` /
/// `JSONObject` members (plugin options, `extra`) kept in their order on both ways.
///
/// An absent optional is encoded as `null` (the documents never omit a key), and
/// integers travel as JSON numbers (doubles): an integer beyond 2^53 cannot be
/// represented exactly and is refused rather than rounded.
public enum JSONCoding {
    /// The value as a JSON document.
    public static func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        let slot = EncodedSlot()
        try ValueEncoder.encode(value, into: slot, path: [])
        return slot.resolved
    }

    /// A value of type `T` read from a JSON document.
    public static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try T(from: ValueDecoder(value: value, codingPath: []))
    }

    /// A value of type `T` read from one line or file of JSON text.
    public static func decode<T: Decodable>(_ type: T.Type, from bytes: some Collection<UInt8>) throws -> T {
        try decode(type, from: try JSONParser.parse(Array(bytes)))
    }

    static let exactIntegerLimit = 9_007_199_254_740_992.0
}

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        if let d = decoder as? ValueDecoder {
            self = d.value
            return
        }
        // An object first, through a keyed container: decoding a JSONObject through a
        // single-value container would come straight back here.
        if let k = try? decoder.container(keyedBy: DynamicKey.self) {
            var o = JSONObject()
            for key in k.allKeys { o[key.stringValue] = try k.decode(JSONValue.self, forKey: key) }
            self = .object(o)
            return
        }
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let n = try? c.decode(Double.self) {
            self = .number(n)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else {
            self = .array(try c.decode([JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        if let e = encoder as? ValueEncoder {
            e.storage.set(self)
            return
        }
        if case .object(let o) = self {
            // A keyed container, member by member: encoding the JSONObject itself
            // through a single-value container would come straight back here.
            var k = encoder.container(keyedBy: DynamicKey.self)
            for m in o { try k.encode(m.value, forKey: DynamicKey(m.key)) }
            return
        }
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .number(let n): try c.encode(n)
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object: break  // handled above
        }
    }
}

extension JSONObject: Codable {
    // Through JSONValue, which handles objects from any coder without recursing.
    public init(from decoder: any Decoder) throws {
        guard case .object(let o) = try JSONValue(from: decoder) else {
            throw DecodingError.typeMismatch(JSONObject.self, .init(codingPath: decoder.codingPath, debugDescription: "expected an object"))
        }
        self = o
    }

    public func encode(to encoder: any Encoder) throws {
        try JSONValue.object(self).encode(to: encoder)
    }
}

// MARK: - Encoder

/// One value being encoded: a finished value, or an object or array whose members are
/// slots of their own (so nested containers can be filled after they are handed out).
/// Where one value being encoded goes: a value, or an object or array filled member by
/// member. Members and elements are appended in place (a copied array per member made
/// encoding quadratic).
final class EncodedSlot {
    enum Kind { case empty, value, object, array }
    /// A member or element: a value already known (a primitive, without a slot of its
    /// own), or a slot a nested encoder fills.
    enum Part {
        case value(JSONValue)
        case slot(EncodedSlot)

        var resolved: JSONValue {
            switch self {
            case .value(let v): v
            case .slot(let s): s.resolved
            }
        }
    }
    private(set) var kind = Kind.empty
    private var value: JSONValue = .null
    private var members: [(key: String, part: Part)] = []
    private var elements: [Part] = []

    var resolved: JSONValue {
        switch kind {
        case .empty: return .null
        case .value: return value
        case .array: return .array(elements.map(\.resolved))
        case .object:
            var o = JSONObject()
            for m in members { o.appendRaw(m.key, m.part.resolved) }
            return .object(o)
        }
    }

    func set(_ v: JSONValue) {
        kind = .value
        value = v
    }

    func makeObject() {
        guard kind != .object else { return }
        kind = .object
        members = []
    }

    func makeArray() {
        guard kind != .array else { return }
        kind = .array
        elements = []
    }

    /// Sets member `key` (replacing an earlier one of that key, in its place).
    private func put(_ key: String, _ part: Part) {
        makeObject()
        if let i = members.firstIndex(where: { $0.key == key }) { members[i].part = part } else { members.append((key, part)) }
    }

    /// The member slot for `key`, created (or replaced) in encoding order.
    func member(_ key: String) -> EncodedSlot {
        let slot = EncodedSlot()
        put(key, .slot(slot))
        return slot
    }

    /// Member `key` is `v`, a value already encoded.
    func member(_ key: String, is v: JSONValue) { put(key, .value(v)) }

    func appendElement() -> EncodedSlot {
        makeArray()
        let slot = EncodedSlot()
        elements.append(.slot(slot))
        return slot
    }

    func appendElement(_ v: JSONValue) {
        makeArray()
        elements.append(.value(v))
    }

    var elementCount: Int { kind == .array ? elements.count : 0 }
}

final class ValueEncoder: Encoder {
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    let storage: EncodedSlot

    init(codingPath: [any CodingKey], storage: EncodedSlot = EncodedSlot()) {
        self.codingPath = codingPath
        self.storage = storage
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        storage.makeObject()
        return KeyedEncodingContainer(KeyedValueEncoder<Key>(slot: storage, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        storage.makeArray()
        return UnkeyedValueEncoder(slot: storage, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleValueEncoder(slot: storage, codingPath: codingPath) }

    /// Encodes `value` into `slot`: primitives directly, anything else through its own `encode(to:)`.
    static func encode<T: Encodable>(_ value: T, into slot: EncodedSlot, path: [any CodingKey]) throws {
        if let v = try primitive(value, path: path) {
            slot.set(v)
        } else {
            try value.encode(to: ValueEncoder(codingPath: path, storage: slot))
        }
    }

    /// `path` is made only for an error.
    static func primitive<T: Encodable>(_ value: T, path: @autoclosure () -> [any CodingKey]) throws -> JSONValue? {
        // The common types by their metatype first: a failed `as?` cast of every
        // structured value through the list below was a tenth of encoding's time.
        if T.self == Double.self { return .number(unsafeBitCast(value, to: Double.self)) }
        if T.self == String.self { return .string(value as! String) }
        if T.self == Int.self { return try primitiveInteger(unsafeBitCast(value, to: Int.self), value, path()) }
        if T.self == Bool.self { return .bool(unsafeBitCast(value, to: Bool.self)) }
        switch value {
        case let v as JSONValue: return v
        case let v as JSONObject: return .object(v)
        case let v as String: return .string(v)
        case let v as Bool: return .bool(v)
        case let v as Double: return .number(v)
        case let v as Float: return .number(Double(v))
        case let v as any BinaryInteger: return try primitiveInteger(v, value, path())
        default: return nil
        }
    }

    static func primitiveInteger(_ v: some BinaryInteger, _ value: Any, _ path: [any CodingKey]) throws -> JSONValue {
        let d = Double(v)
        guard abs(d) <= JSONCoding.exactIntegerLimit else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: path, debugDescription: "integer \(v) is beyond 2^53 and would lose precision as a JSON number"))
        }
        return .number(d)
    }
}

struct KeyedValueEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let slot: EncodedSlot
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { slot.member(key.stringValue, is: .null) }
    // The common primitives directly: no coding path, nested encoder or slot for a number.
    mutating func encode(_ value: Double, forKey key: Key) throws { slot.member(key.stringValue, is: .number(value)) }
    mutating func encode(_ value: String, forKey key: Key) throws { slot.member(key.stringValue, is: .string(value)) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { slot.member(key.stringValue, is: .bool(value)) }
    mutating func encode(_ value: Int, forKey key: Key) throws {
        if abs(Double(value)) <= JSONCoding.exactIntegerLimit {
            slot.member(key.stringValue, is: .number(Double(value)))
        } else {
            // Beyond 2^53: the generic path refuses it, naming the coding path.
            try ValueEncoder.encode(value, into: slot.member(key.stringValue), path: codingPath + [key])
        }
    }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        if let v = try ValueEncoder.primitive(value, path: codingPath + [key]) { return slot.member(key.stringValue, is: v) }
        try value.encode(to: ValueEncoder(codingPath: codingPath + [key], storage: slot.member(key.stringValue)))
    }

    // An absent optional is written as `null`, not left out: PeerBench's documents keep
    // every key (synthesized `encode(to:)` calls these for optional properties).
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        ValueEncoder(codingPath: codingPath + [key], storage: slot.member(key.stringValue)).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        ValueEncoder(codingPath: codingPath + [key], storage: slot.member(key.stringValue)).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { ValueEncoder(codingPath: codingPath, storage: slot.member("super")) }
    mutating func superEncoder(forKey key: Key) -> any Encoder {
        ValueEncoder(codingPath: codingPath + [key], storage: slot.member(key.stringValue))
    }
}

struct UnkeyedValueEncoder: UnkeyedEncodingContainer {
    let slot: EncodedSlot
    let codingPath: [any CodingKey]
    var count: Int { slot.elementCount }

    mutating func encodeNil() throws { slot.appendElement(.null) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        if let v = try ValueEncoder.primitive(value, path: codingPath + [IndexKey(count)]) { return slot.appendElement(v) }
        try value.encode(to: ValueEncoder(codingPath: codingPath + [IndexKey(count)], storage: slot.appendElement()))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let path = codingPath + [IndexKey(count)]
        return ValueEncoder(codingPath: path, storage: slot.appendElement()).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = codingPath + [IndexKey(count)]
        return ValueEncoder(codingPath: path, storage: slot.appendElement()).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let path = codingPath + [IndexKey(count)]
        return ValueEncoder(codingPath: path, storage: slot.appendElement())
    }
}

struct SingleValueEncoder: SingleValueEncodingContainer {
    let slot: EncodedSlot
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { slot.set(.null) }
    mutating func encode<T: Encodable>(_ value: T) throws { try ValueEncoder.encode(value, into: slot, path: codingPath) }
}

struct IndexKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(_ i: Int) {
        stringValue = "\(i)"
        intValue = i
    }
    init?(stringValue: String) {
        self.stringValue = stringValue
        intValue = Int(stringValue)
    }
    init?(intValue: Int) { self.init(intValue) }
}

// MARK: - Decoder

struct ValueDecoder: Decoder {
    let value: JSONValue
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let o) = value else { throw mismatch(JSONObject.self, "an object") }
        return KeyedDecodingContainer(KeyedValueDecoder<Key>(object: o, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let a) = value else { throw mismatch([JSONValue].self, "an array") }
        return UnkeyedValueDecoder(array: a, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func mismatch(_ type: Any.Type, _ expected: String) -> DecodingError {
        .typeMismatch(type, .init(codingPath: codingPath, debugDescription: "expected \(expected), found \(value.typeName)"))
    }

    static func primitive<T: Decodable>(_ type: T.Type, from value: JSONValue, path: [any CodingKey]) throws -> T? {
        func fail(_ expected: String) -> DecodingError {
            .typeMismatch(type, .init(codingPath: path, debugDescription: "expected \(expected), found \(value.typeName)"))
        }
        switch type {
        case is JSONValue.Type: return value as? T
        case is String.Type:
            guard case .string(let s) = value else { throw fail("a string") }
            return s as? T
        case is Bool.Type:
            guard case .bool(let b) = value else { throw fail("a boolean") }
            return b as? T
        case is Double.Type:
            guard case .number(let n) = value else { throw fail("a number") }
            return n as? T
        case is Float.Type:
            guard case .number(let n) = value else { throw fail("a number") }
            return Float(n) as? T
        case let int as any FixedWidthInteger.Type:
            guard case .number(let n) = value, n == n.rounded(), abs(n) <= JSONCoding.exactIntegerLimit,
                let i = int.init(exactly: n)
            else { throw fail("an integer of type \(type)") }
            return i as? T
        default: return nil
        }
    }
}

extension ValueDecoder: SingleValueDecodingContainer {
    func decodeNil() -> Bool { value == .null }
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let v = try ValueDecoder.primitive(type, from: value, path: codingPath) { return v }
        return try T(from: self)
    }
}

struct KeyedValueDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let object: JSONObject
    var codingPath: [any CodingKey]
    var allKeys: [Key] { object.keys.compactMap(Key.init(stringValue:)) }

    func contains(_ key: Key) -> Bool { object[key.stringValue] != nil }

    private func value(_ key: Key) throws -> JSONValue {
        guard let v = object[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no key \"\(key.stringValue)\""))
        }
        return v
    }

    func decodeNil(forKey key: Key) throws -> Bool { try value(key) == .null }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let v = try value(key)
        let path = codingPath + [key]
        if let p = try ValueDecoder.primitive(type, from: v, path: path) { return p }
        return try T(from: ValueDecoder(value: v, codingPath: path))
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try ValueDecoder(value: value(key), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(value: value(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { ValueDecoder(value: .object(object), codingPath: codingPath) }
    func superDecoder(forKey key: Key) throws -> any Decoder { ValueDecoder(value: try value(key), codingPath: codingPath + [key]) }
}

struct UnkeyedValueDecoder: UnkeyedDecodingContainer {
    let array: [JSONValue]
    var codingPath: [any CodingKey]
    var currentIndex = 0
    var count: Int? { array.count }
    var isAtEnd: Bool { currentIndex >= array.count }

    init(array: [JSONValue], codingPath: [any CodingKey]) {
        self.array = array
        self.codingPath = codingPath
    }

    private mutating func next() throws -> (JSONValue, [any CodingKey]) {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(JSONValue.self, .init(codingPath: codingPath, debugDescription: "array ended"))
        }
        defer { currentIndex += 1 }
        return (array[currentIndex], codingPath + [IndexKey(currentIndex)])
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, array[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (v, path) = try next()
        if let p = try ValueDecoder.primitive(type, from: v, path: path) { return p }
        return try T(from: ValueDecoder(value: v, codingPath: path))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (v, path) = try next()
        return try ValueDecoder(value: v, codingPath: path).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (v, path) = try next()
        return try ValueDecoder(value: v, codingPath: path).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let (v, path) = try next()
        return ValueDecoder(value: v, codingPath: path)
    }
}

extension JSONCoding {
    /// A decoding error as a sentence with the JSON path: `missing key "run_id" at $.link`.
    public static func describe(_ error: any Error) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            var p = JSONPath.root
            for k in keys { p = k.intValue.map { p.index($0) } ?? p.key(k.stringValue) }
            return p.description
        }
        guard let e = error as? DecodingError else { return "\(error)" }
        switch e {
        case .keyNotFound(let key, let c): return "missing key \"\(key.stringValue)\" at \(path(c.codingPath))"
        case .typeMismatch(_, let c), .valueNotFound(_, let c): return "\(c.debugDescription) at \(path(c.codingPath))"
        case .dataCorrupted(let c): return "\(c.debugDescription) at \(path(c.codingPath))"
        @unknown default: return "\(e)"
        }
    }
}
