import LinkEmulation
import PeerBenchCore
import PeerBenchPlugin

/// The one place that knows the concrete parts: which plugins exist, which link
/// model resolves environments, which testbed joins the endpoints.
enum Wiring {
    static var registry: PluginRegistry {
        PluginRegistry(registeredPlugins + TestPlugins.enabled)
    }

    static var linkModel: any LinkModel { RadioModel() }

    /// Versions of the libraries the registered plugins use, for the manifest.
    static var libraryVersions: [String: String] {
        var v: [String: String] = [:]
        for name in registry.names { v.merge(registry.type(named: name)!.libraryVersions()) { a, _ in a } }
        return v
    }

    static func makeTestbed(_ mode: LinkMode) throws -> any Testbed {
        switch mode {
        case .none: return LoopbackTestbed()
        case .emulated: return try EmulatedTestbed()
        case .remote: throw InputError(source: "--link", "link mode \"remote\" needs a peer: RemoteRun.connect makes its testbed")
        }
    }
}
