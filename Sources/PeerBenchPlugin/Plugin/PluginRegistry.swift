import PeerBenchJSON

/// Maps plugin names (`"tcp"`) to their types. The executable fills one and hands it
/// to the runner; tests build their own. The core knows no concrete transport.
public struct PluginRegistry: Sendable {
    public private(set) var plugins: [String: any TransportPlugin.Type] = [:]

    public init(_ types: [any TransportPlugin.Type] = []) {
        for t in types { register(t) }
    }

    public mutating func register(_ type: any TransportPlugin.Type) {
        precondition(plugins[type.descriptor.name] == nil, "plugin \(type.descriptor.name) registered twice")
        plugins[type.descriptor.name] = type
    }

    public var names: [String] { plugins.keys.sorted() }

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
