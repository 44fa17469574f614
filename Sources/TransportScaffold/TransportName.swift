/// The names one transport module is known by, derived from what the user typed.
///
/// `new-transport echo` or `new-transport Echo` both make module `EchoTransport`,
/// type `EchoPlugin`, test target `EchoTransportTests` and matrix plugin name `"echo"`.
public struct TransportName: Sendable, Equatable {
    /// Upper camel case: `Echo`, `MyProto`.
    public let typeStem: String
    /// What matrix.json's `"plugin"` says: lower case, `echo`, `myproto`.
    public let pluginName: String

    public var module: String { typeStem + "Transport" }
    public var testModule: String { typeStem + "TransportTests" }
    public var pluginType: String { typeStem + "Plugin" }

    /// Plugin names PeerBench ships or reserves; a new transport cannot take them.
    public static let reserved: Set<String> = ["tcp", "udp", "quic", "uwb", "exec", "tls", "peerbench", "core", "link", "scaffold"]

    /// Checks `raw` is a usable identifier: an ASCII letter, then letters or digits,
    /// at most 40 characters, not ending in "Transport"/"Plugin" (those are added).
    public init(_ raw: String) throws(ScaffoldError) {
        guard let first = raw.unicodeScalars.first else { throw ScaffoldError("give a transport name, e.g. new-transport Echo") }
        let letters = raw.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) }
        guard letters, ("a"..."z").contains(first) || ("A"..."Z").contains(first) else {
            throw ScaffoldError(
                "\"\(raw)\" is not a valid name: use a letter followed by letters or digits (a Swift identifier without underscores), e.g. Echo or Sctp2"
            )
        }
        guard raw.count <= 40 else { throw ScaffoldError("\"\(raw)\" is too long: at most 40 characters") }
        for suffix in ["Transport", "Plugin"] where raw.lowercased().hasSuffix(suffix.lowercased()) && raw.count > suffix.count {
            throw ScaffoldError("\"\(raw)\" ends in \"\(suffix)\", which is added for you: say \(raw.dropLast(suffix.count))")
        }
        typeStem = raw.prefix(1).uppercased() + raw.dropFirst()
        pluginName = raw.lowercased()
    }
}

/// Why the scaffold refused; nothing was changed.
public struct ScaffoldError: Error, Sendable, CustomStringConvertible, Equatable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
