import Foundation

/// Writes to standard output and standard error without buffering surprises.
enum Terminal {
    static func out(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// Never traps: after SIGHUP the terminal is gone (EIO) and a closed stderr pipe
    /// gives EPIPE (SIGPIPE is ignored during a run); the wrap-up must still finish.
    static func err(_ line: String) {
        try? FileHandle.standardError.write(contentsOf: Data((line + "\n").utf8))
    }

    static func error(_ message: String) { err("peerbench: error: \(message)") }

    static var stderrIsTerminal: Bool { isatty(2) == 1 }
}

/// Fixed-width text tables for `list`, `validate` and `compare`.
struct TextTable {
    var header: [String]
    var rows: [[String]] = []

    init(_ header: [String]) { self.header = header }

    mutating func add(_ row: [String]) { rows.append(row) }

    func render() -> String {
        let widths = header.indices.map { i in ([header] + rows).map { $0.indices.contains(i) ? $0[i].count : 0 }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, c in c.padding(toLength: widths[i], withPad: " ", startingAt: 0) }
                .joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
        return ([line(header), line(widths.map { String(repeating: "-", count: $0) })] + rows.map(line)).joined(separator: "\n")
    }
}

/// Number formatting shared by the tables.
enum Format {
    static func number(_ x: Double?, digits: Int = 2) -> String {
        guard let x else { return "-" }
        return String(format: "%.\(digits)f", x)
    }

    static func duration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        if s < 60 { return "\(max(s, 1)) s" }
        if s < 3600 { return "\(s / 60) min \(s % 60) s" }
        return "\(s / 3600) h \((s % 3600) / 60) min"
    }
}
