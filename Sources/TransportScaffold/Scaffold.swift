import Foundation

/// Adds a transport module to a PeerBench package checkout: source, test, the two
/// targets in Package.swift and the registration in Sources/peerbench/RegisteredPlugins.swift.
///
/// All edits are computed and checked first and written only when every one of
/// them is possible, so a refused name (taken, invalid) changes nothing.
public struct Scaffold: Sendable {
    public let packageDirectory: String

    /// Lines in Package.swift the edits are anchored to (kept in the manifest for this tool).
    static let targetsMarker = "// new-transport: new transport targets go above this line"
    static let dependenciesMarker = "// new-transport: new transport modules go above this line"
    static let testsMarker = "// new-transport: new transport test targets go above this line"
    static let registry = "Sources/peerbench/RegisteredPlugins.swift"

    public init(packageDirectory: String) {
        self.packageDirectory = packageDirectory
    }

    /// One file to write: its path relative to the package and its full new text.
    public struct Change: Sendable, Equatable {
        public var path: String
        public var text: String
        public var isNew: Bool
    }

    /// Everything `apply` would write for `name`, or why it refuses.
    public func plan(_ name: TransportName) throws(ScaffoldError) -> [Change] {
        let fm = FileManager.default
        for dir in ["Sources/\(name.module)", "Tests/\(name.testModule)"] where fm.fileExists(atPath: url(dir).path) {
            throw ScaffoldError("\(dir) already exists: the name \(name.typeStem) is taken; pick another")
        }
        if TransportName.reserved.contains(name.pluginName) {
            throw ScaffoldError("the plugin name \"\(name.pluginName)\" is taken by PeerBench itself; pick another")
        }
        for existing in existingTransportModules() where existing.lowercased() == name.module.lowercased() {
            throw ScaffoldError("Sources/\(existing) already exists: the name \(name.typeStem) is taken (names are compared ignoring case)")
        }
        let manifest = try read("Package.swift")
        if manifest.contains("\"\(name.module)\"") {
            throw ScaffoldError("Package.swift already names a target \"\(name.module)\": the name is taken")
        }
        let registry = try read(Self.registry)
        if registry.contains("\(name.pluginType).self") || registry.contains("import \(name.module)\n") {
            throw ScaffoldError("\(Self.registry) already registers \(name.pluginType): the name is taken")
        }
        return [
            Change(path: "Sources/\(name.module)/\(name.pluginType).swift", text: Templates.plugin(name), isNew: true),
            Change(path: "Tests/\(name.testModule)/\(name.pluginType)Tests.swift", text: Templates.test(name), isNew: true),
            Change(path: "Package.swift", text: try editManifest(manifest, name), isNew: false),
            Change(path: Self.registry, text: try editRegistry(registry, name), isNew: false),
        ]
    }

    /// Writes the planned changes. Returns the paths written.
    @discardableResult
    public func apply(_ name: TransportName) throws -> [String] {
        let changes = try plan(name)
        let fm = FileManager.default
        for change in changes {
            let target = url(change.path)
            if change.isNew { try fm.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true) }
            try change.text.write(to: target, atomically: true, encoding: .utf8)
        }
        return changes.map(\.path)
    }

    func editManifest(_ text: String, _ name: TransportName) throws(ScaffoldError) -> String {
        var lines = text.components(separatedBy: "\n")
        func insert(above marker: String, _ newLine: (String) -> String) throws(ScaffoldError) {
            guard let i = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == marker }) else {
                throw ScaffoldError("Package.swift has no line \"\(marker)\"; restore it (see docs/PLUGINS.md) or add the targets by hand")
            }
            let indent = String(lines[i].prefix { $0 == " " })
            lines.insert(newLine(indent), at: i)
        }
        try insert(above: Self.targetsMarker) {
            "\($0).target(name: \"\(name.module)\", dependencies: [\"PeerBenchPlugin\", \"PeerBenchJSON\", \"PeerBenchSystem\", \"PeerBenchSockets\", \"PeerBenchStreams\"], swiftSettings: strict),"
        }
        try insert(above: Self.dependenciesMarker) { "\($0)\"\(name.module)\"," }
        try insert(above: Self.testsMarker) {
            "\($0).testTarget(name: \"\(name.testModule)\", dependencies: [\"\(name.module)\", \"PeerBenchPlugin\", \"TransportTestSupport\"]),"
        }
        return lines.joined(separator: "\n")
    }

    func editRegistry(_ text: String, _ name: TransportName) throws(ScaffoldError) -> String {
        var lines = text.components(separatedBy: "\n")
        guard let lastImport = lines.lastIndex(where: { $0.hasPrefix("import ") }) else {
            throw ScaffoldError("\(Self.registry) has no import lines; cannot register \(name.pluginType)")
        }
        lines.insert("import \(name.module)", at: lastImport + 1)
        guard let open = lines.firstIndex(where: { $0.contains("registeredPlugins") && $0.hasSuffix("= [") }),
            let close = lines[open...].firstIndex(where: { $0 == "]" })
        else {
            throw ScaffoldError(
                "\(Self.registry) has no `let registeredPlugins: [...] = [` list ending in a line \"]\"; cannot register \(name.pluginType)")
        }
        lines.insert("    \(name.pluginType).self,", at: close)
        return lines.joined(separator: "\n")
    }

    private func existingTransportModules() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: url("Sources").path)) ?? []
    }

    private func read(_ path: String) throws(ScaffoldError) -> String {
        do { return try String(contentsOf: url(path), encoding: .utf8) } catch {
            throw ScaffoldError("cannot read \(path) in \(packageDirectory): is this the PeerBench package? (\(error.localizedDescription))")
        }
    }

    private func url(_ path: String) -> URL { URL(fileURLWithPath: packageDirectory).appendingPathComponent(path) }
}
