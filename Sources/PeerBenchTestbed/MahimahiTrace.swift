import Foundation
import PeerBenchJSON
import PeerBenchPlugin

/// A recorded link in the mahimahi trace format, as Pantheon and mahimahi use it: one
/// line per delivery opportunity, the line holding the time in whole milliseconds
/// since the trace began; each opportunity may carry one packet of up to one MTU
/// (mahimahi's 1 500 bytes). Times never decrease; the same time on several lines
/// means several opportunities in that millisecond. The trace repeats with a period of
/// its last time (as mahimahi's link shell replays it), so that must be above 0.
public struct MahimahiTrace: Sendable, Hashable {
    /// The file as named in matrix.json (for messages).
    public var file: String
    /// Opportunity times, milliseconds, non-decreasing.
    public var opportunitiesMs: [UInt32]

    /// Bytes one opportunity carries in mahimahi.
    public static let bytesPerOpportunity = 1_500
    /// Lines a trace may have (a 1 Gbit/s trace of 10 minutes has 50 million; ours are smaller).
    static let maxLines = 10_000_000

    public init(file: String, opportunitiesMs: [UInt32]) {
        self.file = file
        self.opportunitiesMs = opportunitiesMs
    }

    /// The repetition period, milliseconds: the last opportunity's time.
    public var periodMs: UInt32 { opportunitiesMs.last ?? 0 }

    /// Long-run delivery rate, Mbit/s: opportunities x 1 500 bytes per period.
    public var rateMbps: Double {
        periodMs == 0 ? 0 : Double(opportunitiesMs.count * Self.bytesPerOpportunity * 8) / (Double(periodMs) / 1_000) / 1e6
    }

    /// `12 000 opportunities over 10 s, 14.4 Mbit/s`.
    public var summary: String {
        "\(opportunitiesMs.count) opportunities over \(JSONValue.format(Double(periodMs) / 1_000)) s, \(JSONValue.format((rateMbps * 100).rounded() / 100)) Mbit/s"
    }

    /// Reads a trace file; an error names the file and, for bad content, the line.
    public static func load(path: String, named file: String) throws(InputError) -> MahimahiTrace {
        guard let data = FileManager.default.contents(atPath: path) else {
            let exists = FileManager.default.fileExists(atPath: path)
            throw InputError(
                source: file,
                exists
                    ? "trace file cannot be read (check its permissions)"
                    : "trace file not found (paths are relative to the matrix file)")
        }
        return try parse(Array(data), file: file)
    }

    /// Parses trace text. Blank lines at the end are allowed; anything else that is not a
    /// whole number of milliseconds, or goes back in time, is an error naming its line.
    public static func parse(_ bytes: [UInt8], file: String) throws(InputError) -> MahimahiTrace {
        var times: [UInt32] = []
        var line = 1, value: UInt64 = 0, digits = 0, sawBlank = false
        var problem: String?
        // Ends a line: a time, or a blank line (allowed only at the end of the file).
        func endLine() {
            if digits == 0 {
                sawBlank = true
                return
            }
            if let last = times.last, value < UInt64(last) {
                problem = "time \(value) ms goes back in time (the line before says \(last) ms); times must not decrease"
            } else if value > UInt64(UInt32.max) {
                problem = "time \(value) ms is too large"
            } else if times.count == maxLines {
                problem = "the trace has more than \(maxLines) lines"
            } else {
                times.append(UInt32(value))
            }
        }
        for b in bytes where problem == nil {
            switch b {
            case 0x30...0x39:
                if sawBlank {
                    problem = "blank line before this one; every line must hold a time in milliseconds"
                    break
                }
                value = value &* 10 &+ UInt64(b - 0x30)
                digits += 1
                if digits > 12 { problem = "time is too large" }
            case 0x0A:
                endLine()
                if problem == nil {
                    line += 1
                    value = 0
                    digits = 0
                }
            case 0x0D:
                break
            default:
                let shown = (0x21...0x7E).contains(b) ? "\"\(Character(UnicodeScalar(b)))\"" : String(format: "byte 0x%02X", b)
                problem = "expected a whole number of milliseconds, found \(shown)"
            }
        }
        if problem == nil { endLine() }
        if let problem { throw InputError(source: file, path: "line \(line)", problem) }
        guard let last = times.last else { throw InputError(source: file, "trace is empty; it needs at least one delivery opportunity") }
        guard last > 0 else {
            throw InputError(
                source: file, path: "line \(times.count)",
                "the last time is 0 ms; the trace repeats with the period of its last time, which must be above 0")
        }
        return MahimahiTrace(file: file, opportunitiesMs: times)
    }
}
