import PeerBenchJSON

/// Maps plugin names (`"tcp"`) to their types. The executable fills one and hands it
/// to the runner; tests build their own. The core knows no concrete transport.
public struct PluginRegistry: Sendable {
    /// Every registered plugin by name.
    public private(set) var plugins: [String: any TransportPlugin.Type] = [:]

    /// A registry of `types`.
    public init(_ types: [any TransportPlugin.Type] = []) {
        for t in types { register(t) }
    }

    /// Adds a plugin; a second plugin of the same name is a programming error.
    public mutating func register(_ type: any TransportPlugin.Type) {
        precondition(plugins[type.descriptor.name] == nil, "plugin \(type.descriptor.name) registered twice")
        plugins[type.descriptor.name] = type
    }

    /// The registered names, sorted.
    public var names: [String] { plugins.keys.sorted() }

    /// The plugin registered as `name`, if any.
    public func type(named name: String) -> (any TransportPlugin.Type)? { plugins[name] }

    /// Makes a plugin from matrix options, rejecting unknown option keys.
    /// Returns the plugin and the effective options to record.
    public func make(_ name: String, options: JSONValue?, path: JSONPath) throws -> (any TransportPlugin, JSONValue) {
        guard let type = plugins[name] else {
            throw InputError(path: path.description, "unknown plugin \"\(name)\"; available: \(names.joined(separator: ", "))")
        }
        let reader = try PluginOptions(options, path: path.key("options"))
        let plugin = try type.init(options: reader)
        try reader.finish()
        return (plugin, reader.effectiveJSON)
    }
}
