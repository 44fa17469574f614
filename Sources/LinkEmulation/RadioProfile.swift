public import PeerBenchJSON
public import PeerBenchPlugin

/// An inline radio profile from matrix.json: a built-in environment as the base and
/// any of its parameters overridden, for example
/// `{"name": "my-park", "radio": {"base": "free-field", "pathLossExponent": 2.3, "awdl": "realtime"}}`.
///
/// Accepted keys of the `"radio"` object (every one optional; unknown keys are rejected):
/// `base` (a built-in environment name, default `free-field`), `pathLossExponent`,
/// `breakpointMeters` (null = none), `beyondBreakpointExponent`, `foliage` (bool),
/// `shadowingSigmaDb`, `shadowingCorrelationMs`, `interferenceDb`, `blockingPerSecond`,
/// `blockingMeanMs`, `blockingDepthDb` ([min, max]), `awdl` (`bulk` | `realtime`),
/// `awdlOffSlots`, `awdlWindowMiss`, `rateFactor`, `rateAdaptationMarginDb`,
/// `txPowerDbm`, `bodyLossDb`, `noiseFigureDb`, `delayMs`, `jitterMs`,
/// `burstLossPackets`, `queuePackets`, `queueBytes`, `aggregateMPDUs` (1...64),
/// `queueOverflow` (`drop` | `backpressure`).
public enum RadioProfile {
    /// Numeric keys with their allowed ranges (immutable; key paths are not yet Sendable).
    nonisolated(unsafe) static let numericKeys: [(key: String, range: ClosedRange<Double>, path: WritableKeyPath<RadioEnvironment, Double>)] = [
        ("pathLossExponent", 1.0...6.0, \.pathLossExponent),
        ("beyondBreakpointExponent", 1.0...8.0, \.beyondBreakpointExponent),
        ("shadowingSigmaDb", 0...20, \.shadowingSigmaDb),
        ("shadowingCorrelationMs", 0...600_000, \.shadowingCorrelationMs),
        ("interferenceDb", 0...60, \.interferenceDb),
        ("blockingPerSecond", 0...100, \.blockingPerSecond),
        ("blockingMeanMs", 0...600_000, \.blockingMeanMs),
        ("txPowerDbm", -10...30, \.txPowerDbm),
        ("bodyLossDb", 0...40, \.bodyLossDb),
        ("noiseFigureDb", 0...30, \.noiseFigureDb),
        ("delayMs", 0...10_000, \.delayMs),
        ("jitterMs", 0...10_000, \.jitterMs),
        ("burstLossPackets", 1...1_000, \.burstLossPackets),
        ("rateFactor", 0.01...1, \.rateFactor),
        ("rateAdaptationMarginDb", 0...20, \.rateAdaptationMarginDb),
    ]

    /// Every key the `"radio"` object accepts.
    public static var acceptedKeys: [String] {
        ["base"] + numericKeys.map(\.key) + [
            "breakpointMeters", "foliage", "blockingDepthDb", "awdl", "awdlOffSlots", "awdlWindowMiss", "queuePackets", "queueBytes",
            "aggregateMPDUs", "queueOverflow",
        ]
    }

    /// The `"radio"` object inside an environment object, with its path; the object itself
    /// when it has no `"radio"` key (callers may pass either).
    static func radioObject(_ profile: JSONValue, path: JSONPath) -> (JSONValue, JSONPath) {
        if let r = profile["radio"] { return (r, path.key("radio")) }
        return (profile, path)
    }

    /// Checks a profile and returns every problem, each naming the JSON path of the bad value.
    public static func validate(_ profile: JSONValue, path: JSONPath) -> [InputProblem] {
        var problems: [InputProblem] = []
        _ = parse(profile, path: path, problems: &problems)
        return problems
    }

    /// Builds the environment a profile describes, or throws `InputError` with every problem.
    public static func environment(_ profile: JSONValue, name: String, path: JSONPath = .root) throws -> RadioEnvironment {
        var problems: [InputProblem] = []
        let env = parse(profile, path: path, problems: &problems)
        guard problems.isEmpty, var env else { throw InputError(problems) }
        env.name = name
        return env
    }

    static func parse(_ profile: JSONValue, path rootPath: JSONPath, problems: inout [InputProblem]) -> RadioEnvironment? {
        let (radio, path) = radioObject(profile, path: rootPath)
        guard let object = radio.objectValue else {
            problems.append(InputProblem(path: path.description, "a radio profile must be an object, got \(radio.typeName)"))
            return nil
        }
        var env = RadioEnvironment.freeField
        var offSlots: Int?
        var windowMiss: Double?
        if let base = object["base"] {
            if let b = base.stringValue, let found = RadioEnvironment.builtIns.first(where: { $0.name == b }) {
                env = found
            } else {
                let names = RadioEnvironment.builtIns.map(\.name).joined(separator: ", ")
                problems.append(
                    InputProblem(
                        path: path.key("base").description,
                        "unknown base environment \(base.stringValue.map { "\"\($0)\"" } ?? base.typeName); use one of \(names)"))
            }
        }
        for member in object {
            let key = member.key, value = member.value, at = path.key(key).description
            if let spec = numericKeys.first(where: { $0.key == key }) {
                guard let v = value.doubleValue else {
                    problems.append(InputProblem(path: at, "expected a number, got \(value.typeName)"))
                    continue
                }
                guard spec.range.contains(v) else {
                    problems.append(InputProblem(path: at, "\(v) is out of range \(spec.range.lowerBound)...\(spec.range.upperBound)"))
                    continue
                }
                env[keyPath: spec.path] = v
                env.sources[key] = (.assumed, "set by the matrix's radio profile")
                continue
            }
            guard applyOption(key, value, at: at, to: &env, offSlots: &offSlots, windowMiss: &windowMiss, problems: &problems) else { continue }
            if key != "base" { env.sources[key] = (.assumed, "set by the matrix's radio profile") }
        }
        // After the loop, so "awdl": "bulk" given after it does not undo it; realtime has no off-channel slots.
        if env.schedule.windowNanos != nil, offSlots != nil || windowMiss != nil {
            env.schedule = .awdl(offSlots: offSlots ?? env.schedule.offSlotCount, windowMiss: windowMiss ?? env.schedule.windowMissProbability)
        }
        return env
    }

    /// One of the profile's keys that is not a plain number (`numericKeys`), applied to
    /// `env`; false for a key the profile does not have (its problem added).
    static func applyOption(
        _ key: String, _ value: JSONValue, at: String, to env: inout RadioEnvironment, offSlots: inout Int?,
        windowMiss: inout Double?, problems: inout [InputProblem]
    ) -> Bool {
        switch key {
        case "base":
            break
        case "breakpointMeters":
            if value.isNull {
                env.breakpointMeters = nil
                break
            }
            guard let v = value.doubleValue, v >= 1, v <= 100_000 else {
                problems.append(
                    InputProblem(
                        path: at, "expected a distance in metres (1...100000) or null, got \(value.doubleValue.map { "\($0)" } ?? value.typeName)"))
                break
            }
            env.breakpointMeters = v
        case "foliage":
            guard let b = value.boolValue else {
                problems.append(InputProblem(path: at, "expected true or false, got \(value.typeName)"))
                break
            }
            env.foliage = b
        case "blockingDepthDb":
            guard let a = value.arrayValue, a.count == 2, let lo = a[0].doubleValue, let hi = a[1].doubleValue, lo >= 0, lo <= hi, hi <= 100 else {
                problems.append(InputProblem(path: at, "expected [min, max] in dB with 0 <= min <= max <= 100"))
                break
            }
            env.blockingDepthDb = lo...hi
        case "awdl":
            switch value.stringValue {
            case "bulk": if env.schedule.windowNanos == nil { env.schedule = .bulk }  // keeps the base's fitted windows
            case "realtime": env.schedule = .realtime
            default:
                problems.append(
                    InputProblem(path: at, "expected \"bulk\" or \"realtime\", got \(value.stringValue.map { "\"\($0)\"" } ?? value.typeName)"))
            }
        case "awdlOffSlots":
            let most = ChannelSchedule.maxProfileOffSlots
            guard let n = value.intValue, n >= 0, n <= most else {
                problems.append(InputProblem(path: at, "expected a whole number of off-channel slots 0...\(most) (of the 16-slot AWDL sequence)"))
                break
            }
            offSlots = n
        case "awdlWindowMiss":
            guard let v = value.doubleValue, v >= 0, v <= 0.9 else {
                problems.append(InputProblem(path: at, "expected a probability 0...0.9 that a frame misses an availability window"))
                break
            }
            windowMiss = v
        case "aggregateMPDUs":
            guard let n = value.intValue, n >= 1, n <= 64 else {
                problems.append(InputProblem(path: at, "expected a whole number of MPDUs per aggregate 1...64 (1 = no aggregation)"))
                break
            }
            env.aggregateMPDUs = n
        case "queueOverflow":
            switch value.stringValue {
            case "drop": env.backpressure = false
            case "backpressure": env.backpressure = true
            default:
                problems.append(
                    InputProblem(path: at, "expected \"drop\" or \"backpressure\", got \(value.stringValue.map { "\"\($0)\"" } ?? value.typeName)"))
            }
        case "queuePackets":
            guard let n = value.intValue, n >= 1, n <= 1_000_000 else {
                problems.append(InputProblem(path: at, "expected a whole number of packets 1...1000000"))
                break
            }
            env.queue.packets = n
        case "queueBytes":
            guard let n = value.intValue, n >= 1_500, n <= 1 << 30 else {
                problems.append(InputProblem(path: at, "expected a whole number of bytes 1500...1073741824"))
                break
            }
            env.queue.bytes = n
        default:
            problems.append(InputProblem(path: at, "unknown radio profile key \"\(key)\"; accepted: \(acceptedKeys.joined(separator: ", "))"))
            return false
        }
        return true
    }
}
