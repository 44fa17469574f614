/// What `peerbench list` shows about a plugin, and what the runner needs to know.
public struct PluginDescriptor: Sendable {
    public var name: String
    public var summary: String
    public var options: [OptionDescriptor]
    public var usesPayload: Bool

    public init(name: String, summary: String, options: [OptionDescriptor], usesPayload: Bool = true) {
        self.name = name
        self.summary = summary
        self.options = options
        self.usesPayload = usesPayload
    }
}
