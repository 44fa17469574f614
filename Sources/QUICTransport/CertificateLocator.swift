import Foundation

/// Finds the bundled TLS identities (`certs/`).
///
/// In order: `$PEERBENCH_CERTS`; a `certs/` directory next to the executable or
/// in any of its ancestors (an installed `bin/peerbench` with `share/..`? no: the
/// repository layout `.build/<config>/peerbench` finds the package's `certs/`);
/// the same search upwards from the working directory; finally the package this
/// source file was compiled from.
enum CertificateLocator {
    static let environmentVariable = "PEERBENCH_CERTS"

    /// The directory holding `ca.pem`, or nil when none was found.
    static func bundledDirectory() -> String? {
        let fm = FileManager.default
        func valid(_ dir: String) -> Bool { fm.fileExists(atPath: dir + "/ca.pem") }
        if let env = ProcessInfo.processInfo.environment[environmentVariable], !env.isEmpty {
            return env
        }
        var starts: [URL] = []
        if let exe = try? fm.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            starts.append(URL(fileURLWithPath: exe).deletingLastPathComponent())
        }
        starts.append(URL(fileURLWithPath: fm.currentDirectoryPath))
        // Sources/QUICTransport/CertificateLocator.swift -> package root.
        starts.append(URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent())
        for start in starts {
            var dir = start.standardizedFileURL
            while true {
                for candidate in [dir.appendingPathComponent("certs").path, dir.appendingPathComponent("share/peerbench/certs").path] where valid(candidate) {
                    return candidate
                }
                let parent = dir.deletingLastPathComponent()
                if parent.path == dir.path { break }
                dir = parent
            }
        }
        return nil
    }
}
