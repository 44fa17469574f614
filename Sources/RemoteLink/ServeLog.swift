import Foundation

/// serve's log: one line per session and per cell, on stderr, each prefixed with a
/// UTC timestamp. Lines are written whole (one `write`), so an observer never sees
/// half of one.
public struct ServeLog: Sendable {
    private let sink: @Sendable (String) -> Void

    /// Logs to `sink` (tests collect lines); the default writes to stderr.
    public init(sink: (@Sendable (String) -> Void)? = nil) {
        self.sink = sink ?? { line in
            let bytes = Array((line + "\n").utf8)
            _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        }
    }

    public func line(_ text: String) {
        sink("\(Self.timestamp()) serve: \(text)")
    }

    static func timestamp() -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        return f.string(from: Date())
    }
}
