import PeerBenchJSON
import PeerBenchPlugin

extension Validator {
    /// A transport entry's `wifi` object; nil when absent or invalid (the problem is
    /// recorded, naming the JSON path and the allowed values).
    mutating func wifi(_ v: JSONValue?, _ path: JSONPath) -> WifiSettings? {
        guard let v else { return nil }
        guard let o = object(v, path, allowed: WifiSettings.keys) else { return nil }
        var settings = WifiSettings.default
        var ok = true
        if let m = o["performanceMode"] {
            if let mode: PerformanceMode = choice(m, path.key("performanceMode"), "performance mode") {
                settings.performanceMode = mode
            } else {
                ok = false
            }
        }
        if let c = o["serviceClass"] {
            if let sc: ServiceClass = choice(c, path.key("serviceClass"), "service class") { settings.serviceClass = sc } else { ok = false }
        }
        return ok && v.objectValue != nil ? settings : nil
    }

    static func quoted(_ names: [String]) -> String { names.map { "\"\($0)\"" }.joined(separator: ", ") }

    /// `value` as one of `E`'s raw values; otherwise nil and a problem at `path`: "unknown
    /// WHAT VALUE; expected one of ...", then `hint`.
    mutating func choice<E: RawRepresentable & CaseIterable>(_ value: JSONValue, _ path: JSONPath, _ what: String, hint: String = "") -> E?
    where E.RawValue == String {
        if let e = value.stringValue.flatMap(E.init(rawValue:)) { return e }
        fail(path, "unknown \(what) \(value.compactText); expected one of \(Self.quoted(E.allCases.map(\.rawValue)))" + hint)
        return nil
    }
}
