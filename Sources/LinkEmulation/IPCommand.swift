#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Runs iproute2's `ip`. Namespaces are created and configured with it so that what
/// PeerBench does can be repeated and inspected by hand (`ip netns`, `ip -n NS addr`).
enum IPCommand {
    static let path: String = {
        for p in ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"] where access(p, X_OK) == 0 { return p }
        return "/usr/sbin/ip"
    }()

    /// Runs `ip ARGS`; throws `LinkSetupError` with the command and its error output.
    @discardableResult
    static func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw LinkSetupError("cannot run \(path) (iproute2): \(error); install iproute2 or use --link none")
        }
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let text = String(decoding: errors, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            var message = "`ip \(arguments.joined(separator: " "))` failed: \(text)"
            if text.contains("Operation not permitted") || text.contains("Permission denied") {
                message += "; " + LinkSetupError.privilegeHint
            }
            throw LinkSetupError(message)
        }
        return String(decoding: output, as: UTF8.self)
    }
}
