import Foundation

/// serve's log: one line per session and per cell, on stderr, each prefixed with a
/// UTC timestamp. Lines are written whole (one `write`), so an observer never sees
/// half of one.
public struct ServeLog: Sendable {
    private let sink: @Sendable (String) -> Void

    /// Logs to `sink` (tests collect lines); the default writes to stderr.
    public init(sink: (@Sendable (String) -> Void)? = nil) {
        self.sink =
            sink ?? { line in
                let bytes = Array((line + "\n").utf8)
                _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
            }
    }

    /// Logs `text` as one line. Line breaks and other control characters in it (a
    /// client's label, plugin name or cell id) are escaped, so a client cannot forge
    /// a log line: a newline shows as `\n`, others as `\u{XX}`.
    public func line(_ text: String) {
        sink("\(Self.timestamp()) serve: \(Self.escaped(text))")
    }

    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = ""
        for u in text.unicodeScalars {
            switch u {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where isControl(u): out += "\\u{\(String(u.value, radix: 16))}"
            default: out.unicodeScalars.append(u)
            }
        }
        return out
    }

    /// C0 and C1 controls, DEL, and the Unicode line and paragraph separators.
    private static func isControl(_ u: Unicode.Scalar) -> Bool {
        u.value < 0x20 || (0x7F...0x9F).contains(u.value) || u.value == 0x2028 || u.value == 0x2029
    }

    static func timestamp() -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        return f.string(from: Date())
    }
}
