/// What `peerbench list` shows about a plugin, and what the runner needs to know.
public struct PluginDescriptor: Sendable {
    /// The name a matrix's transport entry gives as `plugin` (`"tcp"`), and one sentence on it.
    public var name: String, summary: String
    /// Every option the plugin reads, for `peerbench list`.
    public var options: [OptionDescriptor]
    /// False for a plugin that moves no payload (uwb): its cells have none and record no workload.
    public var usesPayload: Bool

    public init(name: String, summary: String, options: [OptionDescriptor], usesPayload: Bool = true) {
        self.name = name
        self.summary = summary
        self.options = options
        self.usesPayload = usesPayload
    }
}
