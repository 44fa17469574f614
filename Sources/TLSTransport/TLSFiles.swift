import Foundation
import PeerBenchCore

/// Where the X.509 files come from: the options, else the bundled test identities in
/// `certs/` (found via `$PEERBENCH_CERTS`, then upwards from the executable and the
/// working directory, then the package this file was built from).
struct TLSFiles: Sendable {
    var ca: String
    var cert: String
    var key: String

    static let environmentVariable = "PEERBENCH_CERTS"

    init(ca: String, cert: String, key: String) {
        self.ca = ca
        self.cert = cert
        self.key = key
    }

    init(_ options: TLSOptions) throws {
        func bundled(_ name: String) throws -> String {
            guard let dir = Self.bundledDirectory() else {
                throw TransportError("tls: no certs/ directory with ca.pem found (set \(Self.environmentVariable) or the caFile/certFile/keyFile options)")
            }
            return dir + "/" + name
        }
        ca = try options.caFile ?? bundled("ca.pem")
        cert = try options.certFile ?? bundled("server.pem")
        key = try options.keyFile ?? bundled("server-key.pem")
    }

    /// The directory holding the bundled `ca.pem`, or nil.
    static func bundledDirectory() -> String? {
        let fm = FileManager.default
        if let env = ProcessInfo.processInfo.environment[environmentVariable], !env.isEmpty { return env }
        var starts: [URL] = []
        if let exe = try? fm.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            starts.append(URL(fileURLWithPath: exe).deletingLastPathComponent())
        }
        starts.append(URL(fileURLWithPath: fm.currentDirectoryPath))
        // Sources/TLSTransport/TLSFiles.swift -> the package root.
        starts.append(URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent())
        for start in starts {
            var dir = start.standardizedFileURL
            while true {
                let candidate = dir.appendingPathComponent("certs").path
                if fm.fileExists(atPath: candidate + "/ca.pem") { return candidate }
                let parent = dir.deletingLastPathComponent()
                if parent.path == dir.path { break }
                dir = parent
            }
        }
        return nil
    }
}
