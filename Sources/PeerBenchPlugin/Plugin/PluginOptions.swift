import PeerBenchJSON

/// Typed, validated access to a transport's `options` object in matrix.json.
///
/// Each read records the effective value (the default when absent), so the record's
/// `transport.options` shows exactly what ran. After the plugin's `init`, the
/// registry calls `finish()`, which rejects keys nobody read — a typo such as
/// `noDelya` is an error, not silently ignored.
public final class PluginOptions {
    public let path: JSONPath
    private let object: JSONObject
    private var read: Set<String> = []
    private var children: [String: PluginOptions] = [:]
    public private(set) var effective = JSONObject()

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

    public func bool(_ key: String, default d: Bool) throws(InputError) -> Bool {
        let v = try value(key)
        guard let v else {
            effective[key] = .bool(d)
            return d
        }
        guard let b = v.boolValue else { throw mismatch(key, "true or false", v) }
        effective[key] = .bool(b)
        return b
    }

    public func int(_ key: String, default d: Int, range: ClosedRange<Int>) throws(InputError) -> Int {
        let v = try value(key)
        guard let v else {
            effective[key] = .number(Double(d))
            return d
        }
        guard let i = v.intValue else { throw mismatch(key, "an integer", v) }
        guard range.contains(i) else { throw outOfRange(key, "\(i)", range) }
        effective[key] = .number(Double(i))
        return i
    }

    public func double(_ key: String, default d: Double?, range: ClosedRange<Double>) throws(InputError) -> Double? {
        let v = try value(key)
        guard let v else {
            effective[key] = JSONValue(d)
            return d
        }
        guard let x = v.doubleValue else { throw mismatch(key, "a number", v) }
        guard range.contains(x) else { throw outOfRange(key, JSONValue.format(x), range) }
        effective[key] = .number(x)
        return x
    }

    public func string(_ key: String, default d: String?) throws(InputError) -> String? {
        let v = try value(key)
        guard let v else {
            effective[key] = JSONValue(d)
            return d
        }
        guard let s = v.stringValue else { throw mismatch(key, "a string", v) }
        effective[key] = .string(s)
        return s
    }

    /// A string that must be one of `choices` (an enum's raw values).
    public func choice<E: RawRepresentable & CaseIterable>(_ key: String, default d: E) throws(InputError) -> E where E.RawValue == String {
        let v = try value(key)
        guard let v else {
            effective[key] = .string(d.rawValue)
            return d
        }
        guard let s = v.stringValue else { throw mismatch(key, "a string", v) }
        guard let e = E(rawValue: s) else {
            throw InputError(
                path: path.key(key).description,
                "unknown value \"\(s)\"; expected one of \(E.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))")
        }
        effective[key] = .string(s)
        return e
    }

    /// A list of strings (for example a command line); nil when absent.
    public func strings(_ key: String) throws(InputError) -> [String]? {
        let v = try value(key)
        guard let v else {
            effective[key] = .null
            return nil
        }
        guard let items = v.arrayValue else { throw mismatch(key, "an array of strings", v) }
        var out: [String] = []
        for (i, item) in items.enumerated() {
            guard let s = item.stringValue else {
                throw InputError(path: path.key(key).index(i).description, "expected a string, got \(item.typeName)")
            }
            out.append(s)
        }
        effective[key] = .array(out.map { .string($0) })
        return out
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

    private func mismatch(_ key: String, _ expected: String, _ got: JSONValue) -> InputError {
        InputError(path: path.key(key).description, "expected \(expected), got \(got.typeName)")
    }

    private func outOfRange<T>(_ key: String, _ got: String, _ range: ClosedRange<T>) -> InputError {
        InputError(path: path.key(key).description, "\(got) is out of range; allowed: \(range.lowerBound) to \(range.upperBound)")
    }
}
