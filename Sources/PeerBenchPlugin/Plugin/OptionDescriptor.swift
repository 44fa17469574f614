/// One option in `peerbench list`: its key (dotted for nested ones), type, default and meaning.
public struct OptionDescriptor: Sendable {
    public var key: String
    public var type: String
    public var defaultValue: String
    public var help: String

    public init(_ key: String, type: String, default defaultValue: String, help: String) {
        self.key = key
        self.type = type
        self.defaultValue = defaultValue
        self.help = help
    }
}
