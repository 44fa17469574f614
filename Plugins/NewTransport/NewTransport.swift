import Foundation
import PackagePlugin

/// `swift package --allow-writing-to-package-directory new-transport NAME`
///
/// A thin command plugin: it finds the package and hands NAME to the
/// `peerbench-scaffold` tool, which checks the name and writes the new module,
/// its test, the Package.swift targets and the registration (or changes nothing).
@main
struct NewTransport: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        let names = arguments.filter { !$0.hasPrefix("--") }
        guard names.count == 1 else {
            Diagnostics.error("usage: swift package --allow-writing-to-package-directory new-transport NAME")
            throw NewTransportFailure.usage
        }
        let tool = try context.tool(named: "peerbench-scaffold")
        let process = Process()
        process.executableURL = tool.url
        process.arguments = ["--package", context.package.directoryURL.path, names[0]]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw NewTransportFailure.refused(names[0]) }
    }
}

enum NewTransportFailure: Error, CustomStringConvertible {
    case usage
    case refused(String)
    var description: String {
        switch self {
        case .usage: "give exactly one transport name"
        case .refused(let name): "new-transport refused \(name) (see the message above); nothing was changed"
        }
    }
}
