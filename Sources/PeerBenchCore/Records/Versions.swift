import PeerBenchJSON

/// Library versions, written `peerbench` and `swift_compiler` first, the rest by name.
public struct Versions: Sendable, Equatable, Codable {
    public var byName: [String: String]

    public init(libraries: [String: String]) {
        byName = libraries
        byName["peerbench"] = Manifest.peerbenchVersion
        byName["swift_compiler"] = Versions.compilerVersion
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: DynamicKey.self)
        byName = [:]
        for key in c.allKeys { byName[key.stringValue] = try c.decode(String.self, forKey: key) }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: DynamicKey.self)
        let first = ["peerbench", "swift_compiler"]
        for name in first + byName.keys.filter({ !first.contains($0) }).sorted() {
            if let v = byName[name] { try c.encode(v, forKey: DynamicKey(name)) }
        }
    }

    static var compilerVersion: String {
        #if compiler(>=6.4)
            return ">= 6.4"
        #elseif compiler(>=6.3)
            return "6.3"
        #elseif compiler(>=6.2)
            return "6.2"
        #else
            return "< 6.2"
        #endif
    }
}
