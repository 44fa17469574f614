import Foundation
import PeerBenchPlugin

/// A command line from the matrix with its program resolved to a file, so a missing
/// or non-executable program is reported by name before anything starts.
struct ExecCommand: Sendable {
    /// `client` or `server`, for messages.
    let role: String
    /// As written in the matrix (for messages).
    let argv: [String]
    /// argv with the program replaced by its absolute path.
    let resolved: [String]
    let workingDirectory: String

    init(role: String, argv: [String], workingDirectory: String?) throws {
        self.role = role
        self.argv = argv
        let fm = FileManager.default
        let cwd =
            workingDirectory.map { URL(fileURLWithPath: $0, relativeTo: URL(fileURLWithPath: fm.currentDirectoryPath)).path }
            ?? fm.currentDirectoryPath
        self.workingDirectory = cwd
        var isDir: ObjCBool = false
        guard fm.fileExists(atPath: cwd, isDirectory: &isDir), isDir.boolValue else {
            throw TransportError("exec: workingDirectory \(cwd) does not exist")
        }
        let program = argv[0]
        let path: String
        if program.contains("/") {
            path =
                program.hasPrefix("/") ? program : URL(fileURLWithPath: program, relativeTo: URL(fileURLWithPath: cwd + "/")).standardizedFileURL.path
            guard fm.fileExists(atPath: path) else {
                throw TransportError("exec: the \(role) command \(program) was not found (looked for \(path))")
            }
            guard fm.isExecutableFile(atPath: path) else {
                throw TransportError("exec: the \(role) command \(path) is not executable (chmod +x it)")
            }
        } else {
            guard let found = Self.searchPath(program) else {
                throw TransportError("exec: the \(role) command \(program) was not found on PATH")
            }
            path = found
        }
        resolved = [path] + argv.dropFirst()
    }

    /// The command as a user would type it, for error messages.
    var display: String { argv.joined(separator: " ") }

    /// Looks `program` up on `$PATH` (also used for `ip` in the namespace prefix).
    static func searchPath(_ program: String) -> String? {
        let dirs = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin").split(separator: ":")
        for d in dirs + ["/usr/sbin", "/sbin"] {
            let p = "\(d)/\(program)"
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return nil
    }
}
