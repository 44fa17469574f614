/// One option in `peerbench list`: its key (dotted for nested ones), type, default and meaning.
public struct OptionDescriptor: Sendable {
    /// The key, its type (`int`, `bool`, `a|b`), its default and its help, as `list` prints them.
    public var key: String, type: String, defaultValue: String, help: String

    public init(_ key: String, type: String, default defaultValue: String, help: String) {
        self.key = key
        self.type = type
        self.defaultValue = defaultValue
        self.help = help
    }
}
