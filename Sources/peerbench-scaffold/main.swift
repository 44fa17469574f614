import Foundation
import TransportScaffold

// The worker behind `swift package --allow-writing-to-package-directory new-transport NAME`
// (Plugins/NewTransport): the plugin only finds the package and passes NAME here.
// Usage: peerbench-scaffold --package DIR NAME

var args = Array(CommandLine.arguments.dropFirst())
var package = FileManager.default.currentDirectoryPath
if let i = args.firstIndex(of: "--package"), i + 1 < args.count {
    package = args[i + 1]
    args.removeSubrange(i...(i + 1))
}
guard args.count == 1 else {
    FileHandle.standardError.write(Data("usage: swift package --allow-writing-to-package-directory new-transport NAME\n".utf8))
    exit(64)
}
do {
    let name = try TransportName(args[0])
    let written = try Scaffold(packageDirectory: package).apply(name)
    print("new-transport: created the \"\(name.pluginName)\" transport (module \(name.module)):")
    for path in written { print("  \(path)") }
    print("Next: swift build && swift test --filter \(name.testModule); then make it yours (docs/PLUGINS.md).")
} catch {
    FileHandle.standardError.write(Data("new-transport: \(error); nothing was changed\n".utf8))
    exit(1)
}
