import Foundation

/// The built `peerbench` binary, which the CLI and remote tests run as a user would
/// (`swift build --build-tests` builds it beside the test bundle).
public enum PeerbenchBinary {
    public static var path: String {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("peerbench").path,
            Bundle.main.bundleURL.appendingPathComponent("peerbench").path,
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("peerbench").path,
            packageRoot + "/.build/debug/peerbench",
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates.last!
    }
}
