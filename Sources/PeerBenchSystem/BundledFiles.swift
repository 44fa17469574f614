import Foundation

/// Finds a file or directory PeerBench ships beside its executable (`certs/`, the chart
/// renderer) without a resource bundle: relative to a directory, looked for in that
/// directory and each of its ancestors, starting from
/// 1. the running executable's directory (`.build/release/peerbench` in a checkout finds
///    the checkout's files; `PREFIX/bin/peerbench` finds `PREFIX/share/peerbench/...`);
/// 2. the working directory;
/// 3. the package this file was compiled from.
public enum BundledFiles {
    /// The first of `relativePaths` found, tried in order in each directory; with
    /// `containing`, only a directory that holds that file counts.
    public static func locate(_ relativePaths: [String], containing file: String? = nil) -> String? {
        let fm = FileManager.default
        var starts: [URL] = []
        if let exe = try? fm.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            starts.append(URL(fileURLWithPath: exe).deletingLastPathComponent())
        }
        starts.append(URL(fileURLWithPath: fm.currentDirectoryPath))
        // Sources/PeerBenchSystem/BundledFiles.swift -> package root.
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        starts.append(root)
        for start in starts {
            var dir = start.standardizedFileURL
            while true {
                for rel in relativePaths {
                    let candidate = dir.appendingPathComponent(rel).path
                    if fm.fileExists(atPath: file.map { candidate + "/" + $0 } ?? candidate) { return candidate }
                }
                let parent = dir.deletingLastPathComponent()
                if parent.path == dir.path { break }
                dir = parent
            }
        }
        return nil
    }
}
