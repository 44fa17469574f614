import PeerBenchJSON
import PeerBenchPlugin

/// A competing flow between the cell's own endpoints (matrix key `crossTraffic`): UDP
/// datagrams of one service class, in one or both directions, at an offered rate or
/// as fast as the link takes them, so a cell's service class has something to
/// compete with.
///
/// `"crossTraffic": {"serviceClass": "background", "direction": "up", "rateMbps": "saturating"}`
/// applies to every cell; an array of such objects and `"none"` runs every cell once
/// per entry (``["none", {...}]``: with and without competing traffic).
public struct CrossTrafficSpec: Sendable, Codable, Hashable, CustomStringConvertible {
    /// Which way the competing datagrams go. Up = client to server.
    public enum Direction: String, Sendable, Codable, CaseIterable, Hashable {
        case up, down, both
    }

    public var serviceClass: ServiceClass
    public var direction: Direction
    /// Offered rate per direction, Mbit/s of UDP payload; nil = saturating (the sender
    /// sends whenever its socket takes a datagram).
    public var rateMbps: Double?

    public init(serviceClass: ServiceClass = .background, direction: Direction = .up, rateMbps: Double? = nil) {
        self.serviceClass = serviceClass
        self.direction = direction
        self.rateMbps = rateMbps
    }

    /// Keys of the object, for error messages.
    static let keys = ["serviceClass", "direction", "rateMbps"]

    /// Canonical text for the cell id.
    var canonicalText: String {
        "cross:\(serviceClass.rawValue),\(direction.rawValue),\(rateMbps.map { JSONValue.format($0) } ?? "saturating")"
    }

    /// `background up saturating`, `bestEffort both 20 Mbit/s`.
    public var description: String {
        "\(serviceClass.rawValue) \(direction.rawValue) \(rateMbps.map { "\(JSONValue.format($0)) Mbit/s" } ?? "saturating")"
    }
}

extension Validator {
    /// The matrix's `crossTraffic`: one variant (`nil` = no competing flow) per entry;
    /// `[nil]` when absent. Problems name the JSON path.
    mutating func crossTraffic(_ v: JSONValue?, _ path: JSONPath) -> [CrossTrafficSpec?] {
        guard let v else { return [nil] }
        if let list = v.arrayValue {
            if list.isEmpty {
                fail(path, "must not be empty (leave crossTraffic out for no competing flow)")
                return [nil]
            }
            if list.count > 8 {
                fail(path, "has \(list.count) entries; at most 8 are allowed")
                return [nil]
            }
            return list.enumerated().map { crossTrafficVariant($1, path.index($0)) }
        }
        return [crossTrafficVariant(v, path)]
    }

    private mutating func crossTrafficVariant(_ v: JSONValue, _ path: JSONPath) -> CrossTrafficSpec? {
        if v.stringValue == "none" || v.isNull { return nil }
        guard v.objectValue != nil else {
            fail(path, "expected a cross-traffic object {\"serviceClass\", \"direction\", \"rateMbps\"} or \"none\", got \(v.compactText)")
            return nil
        }
        guard let o = object(v, path, allowed: CrossTrafficSpec.keys, required: ["rateMbps"]) else { return nil }
        var spec = CrossTrafficSpec()
        if let c = o["serviceClass"], let sc: ServiceClass = choice(c, path.key("serviceClass"), "service class") { spec.serviceClass = sc }
        if let d = o["direction"],
            let dir: CrossTrafficSpec.Direction = choice(d, path.key("direction"), "direction", hint: " (up = client to server)")
        {
            spec.direction = dir
        }
        if let r = o["rateMbps"] {
            if r.stringValue == "saturating" {
                spec.rateMbps = nil
            } else if let x = r.doubleValue, x > 0, x <= 100_000 {
                spec.rateMbps = x
            } else {
                fail(path.key("rateMbps"), "expected an offered rate above 0 and at most 100000 Mbit/s, or \"saturating\", got \(r.compactText)")
            }
        }
        return spec
    }
}

extension Record.CrossTraffic {
    /// What `compare` and `report` append to the environment's name for a cell that ran
    /// with a competing flow (` + background saturating`), so it is a scenario of its
    /// own; empty for a cell without one.
    var scenarioSuffix: String {
        guard let c = serviceClass else { return "" }
        return " + \(c) \(offeredMbps.map { "\(JSONValue.format($0)) Mbit/s" } ?? "saturating")"
    }
}
