import PeerBenchJSON
import PeerBenchPlugin

/// How the link changes during a cell: the matrix's optional fourth dimension
/// `"scenarios"` (docs/LINK-MODEL.md, "Scenarios"). Absent means `static` only, so a
/// matrix without it expands to exactly the cells (and cell ids) it always did.
///
/// Times are seconds on the link's clock: 0 is the moment the emulator starts for
/// the cell (before the connection is set up), the same clock the radio model's
/// fading runs on.
public struct ScenarioSpec: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// The link does not change (beyond the radio model's own fading).
        case `static`
        /// The distance grows from the cell's distance at `speedMps` to `to`, and with
        /// `back` returns the same way at the same speed.
        case walkAway(speedMps: Double, to: DistanceSpec, back: Bool)
        /// Nothing crosses the link, either way, from `atSeconds` for `durationSeconds`.
        case outage(atSeconds: Double, durationSeconds: Double)
        /// Extra attenuation of `depthDb` for `lengthSeconds` once every `periodSeconds`
        /// (the first block begins after one period, so there is a "before").
        case bodyBlock(depthDb: Double, lengthSeconds: Double, periodSeconds: Double)
        /// Packet-delivery opportunities of a recorded link (mahimahi format), per direction.
        case trace(up: MahimahiTrace, down: MahimahiTrace)
    }

    /// Unique within the matrix; part of `cell_id` and shown in `Cell.summary`.
    public var name: String
    public var kind: Kind
    /// As written in matrix.json; part of the cell id (nil for the implicit `static`).
    public var json: JSONValue?

    public init(name: String, kind: Kind, json: JSONValue?) {
        self.name = name
        self.kind = kind
        self.json = json
    }

    /// The unchanging link: every matrix without `"scenarios"` has only this.
    public static let `static` = ScenarioSpec(name: "static", kind: .static, json: nil)

    public var isStatic: Bool { kind == .static }

    /// The kind's name as matrix.json and records spell it.
    public var kindName: String {
        switch kind {
        case .static: "static"
        case .walkAway: "walk-away"
        case .outage: "outage"
        case .bodyBlock: "body-block"
        case .trace: "trace"
        }
    }

    /// The kinds matrix.json accepts, in documentation order.
    public static let kindNames = ["static", "walk-away", "outage", "body-block", "trace"]

    /// Walking speed when `speedMps` is absent: a typical pedestrian [A: 1.4 m/s is the
    /// usual design walking speed, e.g. the Highway Capacity Manual's 1.2-1.5 m/s].
    public static let defaultWalkingSpeedMps = 1.4
    /// A built-in `outage` by name alone: 5 s from 2 s.
    public static let defaultOutage = (atSeconds: 2.0, durationSeconds: 5.0)
    /// A built-in `body-block` by name alone: 15 dB for 0.5 s every 3 s (see LINK-MODEL.md).
    public static let defaultBodyBlock = (depthDb: 15.0, lengthSeconds: 0.5, periodSeconds: 3.0)

    /// The built-in scenario a name alone means; nil for `trace` (it needs files) and unknown names.
    public static func builtIn(named name: String) -> ScenarioSpec? {
        let json = JSONValue.string(name)
        switch name {
        case "static": return .static
        case "walk-away":
            return ScenarioSpec(name: name, kind: .walkAway(speedMps: defaultWalkingSpeedMps, to: .max, back: false), json: json)
        case "outage":
            return ScenarioSpec(
                name: name, kind: .outage(atSeconds: defaultOutage.atSeconds, durationSeconds: defaultOutage.durationSeconds),
                json: json)
        case "body-block":
            let b = defaultBodyBlock
            return ScenarioSpec(
                name: name, kind: .bodyBlock(depthDb: b.depthDb, lengthSeconds: b.lengthSeconds, periodSeconds: b.periodSeconds),
                json: json)
        default: return nil
        }
    }

    /// One line for `validate` and logs, independent of the environment.
    public var summary: String {
        func s(_ x: Double) -> String { JSONValue.format(x) }
        switch kind {
        case .static: return "static: the link does not change"
        case .walkAway(let v, let to, let back):
            return "\(name) (walk-away): from the cell's distance to \(to == .max ? "max" : "\(to.label) m") at \(s(v)) m/s"
                + (back ? ", then back at the same speed" : ", staying there")
        case .outage(let at, let d):
            return "\(name) (outage): nothing crosses either way from \(s(at)) s to \(s(at + d)) s, then the link returns as before"
        case .bodyBlock(let depth, let length, let period):
            return "\(name) (body-block): +\(s(depth)) dB for \(s(length)) s every \(s(period)) s (first at \(s(period)) s)"
        case .trace(let up, let down):
            return "\(name) (trace): up \(up.file) (\(up.summary)), down \(down.file) (\(down.summary))"
        }
    }
}
