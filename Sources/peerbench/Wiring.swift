import PeerBenchCore

/// The one place that knows the concrete parts: which plugins exist, which link
/// model resolves environments, which testbed joins the endpoints.
enum Wiring {
    static var registry: PluginRegistry {
        PluginRegistry(registeredPlugins)
    }

    static var linkModel: any LinkModel { InterimLinkModel() }

    /// Versions of the libraries the registered plugins use, for the manifest.
    static var libraryVersions: [String: String] {
        var v: [String: String] = [:]
        for name in registry.names { v.merge(registry.type(named: name)!.libraryVersions()) { a, _ in a } }
        return v
    }

    static func makeTestbed(_ mode: LinkMode) throws -> any Testbed {
        switch mode {
        case .none: return LoopbackTestbed()
        case .emulated, .remote:
            throw InputError(source: "--link", "link mode \"\(mode.rawValue)\" is not available yet; use --link none")
        }
    }
}

/// Interim until the radio model lands: knows the field study's environment names,
/// applies no impairment.
struct InterimLinkModel: LinkModel {
    var builtInEnvironments: [String] { ["underground", "inner-city", "free-field", "forest"] }
    func validateProfile(_ profile: JSONValue, path: JSONPath) -> [InputProblem] {
        [InputProblem(path: path.description, "radio profiles need the radio model")]
    }
    func resolve(environment: String, profile: JSONValue?, distance: Double?, distanceLabel: String) throws -> ResolvedLink {
        ResolvedLink(environment: environment, distanceMeters: distance, distanceLabel: distanceLabel)
    }
    func describe() -> [String] { [] }
}
