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
            if let mode = m.stringValue.flatMap(PerformanceMode.init(rawValue:)) {
                settings.performanceMode = mode
            } else {
                fail(
                    path.key("performanceMode"),
                    "unknown performance mode \(m.compactText); expected one of \(Self.quoted(PerformanceMode.allCases.map(\.rawValue)))")
                ok = false
            }
        }
        if let c = o["serviceClass"] {
            if let sc = c.stringValue.flatMap(ServiceClass.init(rawValue:)) {
                settings.serviceClass = sc
            } else {
                fail(
                    path.key("serviceClass"),
                    "unknown service class \(c.compactText); expected one of \(Self.quoted(ServiceClass.allCases.map(\.rawValue)))")
                ok = false
            }
        }
        return ok && v.objectValue != nil ? settings : nil
    }

    static func quoted(_ names: [String]) -> String { names.map { "\"\($0)\"" }.joined(separator: ", ") }
}
