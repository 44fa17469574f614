/// An optional property whose key is written as `null` when the value is nil, never
/// left out: PeerBench's documents keep every key (docs/COMPARE.md, docs/RECORDS.md).
/// `JSONCoding` writes any nil optional so; Foundation's `JSONEncoder`, which writes
/// compare's and report's JSON and `samples.jsonl`, would leave the key out. A missing
/// key still decodes as nil, as for a plain optional, so older documents read.
@propertyWrapper
public struct NullWhenAbsent<Value> {
    public var wrappedValue: Value?

    public init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }
}

extension NullWhenAbsent: Sendable where Value: Sendable {}
extension NullWhenAbsent: Equatable where Value: Equatable {}

extension NullWhenAbsent: Encodable where Value: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        if let wrappedValue { try c.encode(wrappedValue) } else { try c.encodeNil() }
    }
}

extension NullWhenAbsent: Decodable where Value: Decodable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        wrappedValue = c.decodeNil() ? nil : try c.decode(Value.self)
    }
}

extension KeyedDecodingContainer {
    /// What a synthesized `init(from:)` calls for a `@NullWhenAbsent` property: a missing
    /// key is nil, not an error.
    public func decode<Value: Decodable>(_ type: NullWhenAbsent<Value>.Type, forKey key: Key) throws -> NullWhenAbsent<Value> {
        NullWhenAbsent(wrappedValue: try decodeIfPresent(Value.self, forKey: key))
    }
}
