import PeerBenchJSON

/// Typed, validated access to a transport's `options` object in matrix.json.
///
/// Each read records the effective value (the default when absent), so the record's
/// `transport.options` shows exactly what ran. After the plugin's `init`, the
/// registry calls `finish()`, which rejects keys nobody read — a typo such as
/// `noDelya` is an error, not silently ignored.
public final class PluginOptions {
    /// Where the options are in matrix.json, for error messages.
    public let path: JSONPath
    private let object: JSONObject
    private var read: Set<String> = []
    private var children: [String: PluginOptions] = [:]
    /// What each read key ran with, nested objects aside (`effectiveJSON` has them).
    public private(set) var effective = JSONObject()

    /// Reads `value` (nil or null: no options) found at `path`; anything but an object is refused.
    public init(_ value: JSONValue?, path: JSONPath) throws(InputError) {
        self.path = path
        switch value {
        case nil, .null?: object = JSONObject()
        case .object(let o)?: object = o
        case let other?: throw InputError(path: path.description, "options must be an object, got \(other.typeName)")
        }
    }

    /// Whether the matrix gave this key.
    public func has(_ key: String) -> Bool { object[key] != nil && object[key] != .null }

    /// `key` as true or false; `d` when absent.
    public func bool(_ key: String, default d: Bool) throws(InputError) -> Bool {
        try typed(key, "true or false", JSONValue.bool) { $0.boolValue } ?? absent(key, d, .bool(d))
    }

    /// `key` as an integer within `range`; `d` when absent.
    public func int(_ key: String, default d: Int, range: ClosedRange<Int>) throws(InputError) -> Int {
        try typed(key, "an integer", { .number(Double($0)) }) { v throws(InputError) in
            try v.intValue.map { i throws(InputError) in try within(key, i, "\(i)", range) }
        } ?? absent(key, d, .number(Double(d)))
    }

    /// `key` as a number within `range`; `d` (nil: none) when absent.
    public func double(_ key: String, default d: Double?, range: ClosedRange<Double>) throws(InputError) -> Double? {
        try typed(key, "a number", JSONValue.number) { v throws(InputError) in
            try v.doubleValue.map { x throws(InputError) in try within(key, x, JSONValue.format(x), range) }
        } ?? absent(key, d, JSONValue(d))
    }

    /// `key` as a string; `d` (nil: none) when absent.
    public func string(_ key: String, default d: String?) throws(InputError) -> String? {
        try typed(key, "a string", JSONValue.string) { $0.stringValue } ?? absent(key, d, JSONValue(d))
    }

    /// A string that must be one of `choices` (an enum's raw values).
    public func choice<E: RawRepresentable & CaseIterable>(_ key: String, default d: E) throws(InputError) -> E where E.RawValue == String {
        try typed(key, "a string", { .string($0.rawValue) }) { v throws(InputError) in
            try v.stringValue.map { s throws(InputError) in
                guard let e = E(rawValue: s) else {
                    throw InputError(
                        path: path.key(key).description,
                        "unknown value \"\(s)\"; expected one of \(E.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))")
                }
                return e
            }
        } ?? absent(key, d, .string(d.rawValue))
    }

    /// A list of strings (for example a command line); nil when absent.
    public func strings(_ key: String) throws(InputError) -> [String]? {
        try typed(key, "an array of strings", { .array($0.map(JSONValue.string)) }) { v throws(InputError) in
            try v.arrayValue?.enumerated().map { i, item throws(InputError) in
                guard let s = item.stringValue else {
                    throw InputError(path: path.key(key).index(i).description, "expected a string, got \(item.typeName)")
                }
                return s
            }
        } ?? absent(key, nil, .null)
    }

    /// Any JSON value, unchecked, recorded as given (for settings passed through to
    /// something else, such as an external plugin's own configuration); nil when absent.
    public func json(_ key: String) throws(InputError) -> JSONValue? {
        let v = try value(key)
        effective[key] = v ?? .null
        return v
    }

    /// A nested options object (for example `keepAlive`); absent reads as empty.
    public func object(_ key: String) throws(InputError) -> PluginOptions {
        let v = try value(key)
        let child = try PluginOptions(v, path: path.key(key))
        children[key] = child
        return child
    }

    /// Rejects keys that were never read. Called by the registry after `init`.
    public func finish() throws(InputError) {
        var problems: [InputProblem] = []
        for k in object.keys where !read.contains(k) {
            problems.append(
                InputProblem(path: path.key(k).description, "unknown option \"\(k)\"; known options: \(read.sorted().joined(separator: ", "))"))
        }
        for (_, c) in children.sorted(by: { $0.key < $1.key }) {
            do { try c.finish() } catch { problems += error.problems }
        }
        if !problems.isEmpty { throw InputError(problems) }
    }

    /// The effective options, nested objects included, as recorded in each record.
    public var effectiveJSON: JSONValue {
        var o = effective
        for (k, c) in children { o[k] = c.effectiveJSON }
        return .object(o)
    }

    private func value(_ key: String) throws(InputError) -> JSONValue? {
        read.insert(key)
        let v = object[key]
        return v == .null ? nil : v
    }

    /// The one typed read of a present `key`: `convert`ed (nil: not `expected`), its
    /// effective value as `record` writes it; nil when absent.
    private func typed<T>(
        _ key: String, _ expected: String, _ record: (T) -> JSONValue, _ convert: (JSONValue) throws(InputError) -> T?
    ) throws(InputError) -> T? {
        guard let v = try value(key) else { return nil }
        guard let t = try convert(v) else { throw mismatch(key, expected, v) }
        effective[key] = record(t)
        return t
    }

    /// An absent key's default, recorded as its effective value.
    private func absent<T>(_ key: String, _ d: T, _ recorded: JSONValue) -> T {
        effective[key] = recorded
        return d
    }

    private func within<T: Comparable>(_ key: String, _ x: T, _ text: String, _ range: ClosedRange<T>) throws(InputError) -> T {
        guard range.contains(x) else { throw outOfRange(key, text, range) }
        return x
    }

    private func mismatch(_ key: String, _ expected: String, _ got: JSONValue) -> InputError {
        InputError(path: path.key(key).description, "expected \(expected), got \(got.typeName)")
    }

    private func outOfRange<T>(_ key: String, _ got: String, _ range: ClosedRange<T>) -> InputError {
        InputError(path: path.key(key).description, "\(got) is out of range; allowed: \(range.lowerBound) to \(range.upperBound)")
    }
}
