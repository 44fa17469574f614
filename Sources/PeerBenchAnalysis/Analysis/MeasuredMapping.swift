import Foundation
import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin

/// How the words of a field study's CSV files become the words of PeerBench's records:
/// place names (`Scenario`) to environments, transport names (`Transport Protocol`) to
/// transport labels, and distance labels (`Distance (m)`, as the app saved them) to metres.
/// The default is the 2025 iOS field study's (docs/COMPARE.md, "Against field
/// measurements"); a JSON map file replaces any of the three sections.
public struct MeasuredMapping: Sendable, Equatable, Codable {
    /// One name and what it stands for in the records.
    public struct Entry<Value: Sendable & Equatable & Codable>: Sendable, Equatable, Codable {
        public var from: String
        public var to: Value

        public init(from: String, to: Value) {
            self.from = from
            self.to = to
        }
    }

    /// Study place -> record `environment`. Ordered: the order is the file's, shown as is.
    public var places: [Entry<String>]
    /// Study transport -> record `transport.label`.
    public var transports: [Entry<String>]
    /// Distance label as saved -> metres; used only for rows without `distance_m`.
    var distanceLabels: [Entry<Double>]

    enum CodingKeys: String, CodingKey { case places, transports, distanceLabels = "distance_labels" }

    public init(places: [Entry<String>], transports: [Entry<String>], distanceLabels: [Entry<Double>]) {
        self.places = places
        self.transports = transports
        self.distanceLabels = distanceLabels
    }

    /// The 2025 field study's: its places, its three transports, and its labels 1/10/30
    /// of which 30 was used for 5 m (shared README: the app kept the planned labels).
    public static let fieldStudy2025 = MeasuredMapping(
        places: [
            .init(from: "Field", to: "free-field"), .init(from: "Forest", to: "forest"),
            .init(from: "Inner City", to: "inner-city"), .init(from: "Underground", to: "underground"),
        ],
        transports: [.init(from: "TCP", to: "tcp"), .init(from: "UDP", to: "udp"), .init(from: "QUIC", to: "quic")],
        distanceLabels: [.init(from: "1", to: 1), .init(from: "10", to: 10), .init(from: "30", to: 5)])

    /// The environment of a place name; names match ignoring case and surrounding blanks.
    public func place(_ name: String) -> String? { Self.lookUp(name, in: places) }

    public func transport(_ name: String) -> String? { Self.lookUp(name, in: transports) }

    /// Metres of a distance label, matched as a number (`"30"` and `"30.0"` are one label).
    public func metres(label: Double) -> Double? {
        distanceLabels.first { Double($0.from.trimmingCharacters(in: .whitespaces)) == label }?.to
    }

    static func lookUp(_ name: String, in entries: [Entry<String>]) -> String? {
        let key = name.trimmingCharacters(in: .whitespaces).lowercased()
        return entries.first { $0.from.trimmingCharacters(in: .whitespaces).lowercased() == key }?.to
    }

    /// The map file's mapping (`--measured-map`), or the 2025 study's without one.
    public static func load(path: String?) throws(InputError) -> MeasuredMapping {
        guard let path else { return fieldStudy2025 }
        return try load(path: path)
    }

    /// The default with the sections a map file gives replaced, e.g.
    /// `{"places": {"Park": "free-field"}, "distance_labels": {"2": 2}}`. Unknown keys,
    /// wrong types and labels that are not numbers are refused with their JSON path.
    public static func load(path: String) throws(InputError) -> MeasuredMapping {
        guard let bytes = FileManager.default.contents(atPath: path) else {
            throw InputError(source: path, "cannot read the file (--measured-map)")
        }
        let json: JSONValue
        do { json = try JSONParser.parse(Array(bytes)) } catch { throw InputError(source: path, "not valid JSON: \(error)") }
        do { return try parse(json) } catch { throw error.attributed(to: path) }
    }

    /// A map document already parsed; errors carry JSON paths, no file.
    public static func parse(_ json: JSONValue) throws(InputError) -> MeasuredMapping {
        guard let object = json.objectValue else { throw InputError(path: "$", "expected an object, got \(json.typeName)") }
        var mapping = fieldStudy2025
        var problems: [InputProblem] = []
        for member in object {
            let path = JSONPath.root.key(member.key)
            switch member.key {
            case "places", "transports":
                guard let names = strings(member.value, path: path, problems: &problems) else { continue }
                if member.key == "places" { mapping.places = names } else { mapping.transports = names }
            case "distance_labels":
                guard let o = member.value.objectValue else {
                    problems.append(InputProblem(path: path.description, "expected an object of label: metres, got \(member.value.typeName)"))
                    continue
                }
                var labels: [Entry<Double>] = []
                for m in o {
                    let p = path.key(m.key)
                    guard Double(m.key.trimmingCharacters(in: .whitespaces)) != nil else {
                        problems.append(InputProblem(path: p.description, "the label \"\(m.key)\" is not a number (the CSV's Distance (m) is)"))
                        continue
                    }
                    guard let metres = m.value.doubleValue, metres.isFinite, metres >= 0 else {
                        problems.append(InputProblem(path: p.description, "expected a distance in metres (a number >= 0), got \(m.value.typeName)"))
                        continue
                    }
                    labels.append(Entry(from: m.key, to: metres))
                }
                mapping.distanceLabels = labels
            default:
                problems.append(InputProblem(path: path.description, "unknown key (known: places, transports, distance_labels)"))
            }
        }
        if !problems.isEmpty { throw InputError(problems) }
        return mapping
    }

    static func strings(_ value: JSONValue, path: JSONPath, problems: inout [InputProblem]) -> [Entry<String>]? {
        guard let o = value.objectValue else {
            problems.append(InputProblem(path: path.description, "expected an object of name: record name, got \(value.typeName)"))
            return nil
        }
        var out: [Entry<String>] = []
        for m in o {
            guard let to = m.value.stringValue, !to.isEmpty else {
                problems.append(InputProblem(path: path.key(m.key).description, "expected a non-empty string, got \(m.value.typeName)"))
                continue
            }
            out.append(Entry(from: m.key, to: to))
        }
        return out
    }
}
