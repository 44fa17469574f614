import Foundation

/// Finds the bundled TLS identities (`certs/`) that the encrypted transports use by
/// default, in this order:
/// 1. `$PEERBENCH_CERTS`;
/// 2. a `certs/` or `share/peerbench/certs/` directory next to the running executable
///    or in one of its ancestors (`.build/release/peerbench` in a checkout finds the
///    checkout's `certs/`; `PREFIX/bin/peerbench` finds `PREFIX/share/peerbench/certs`);
/// 3. the same search upwards from the working directory;
/// 4. the package this file was compiled from.
public enum BundledCertificates {
    public static let environmentVariable = "PEERBENCH_CERTS"

    /// The directory holding `ca.pem`, or nil when none was found.
    public static func directory() -> String? {
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
        // Sources/PeerBenchCore/Plugin/BundledCertificates.swift -> package root.
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { root.deleteLastPathComponent() }
        starts.append(root)
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
