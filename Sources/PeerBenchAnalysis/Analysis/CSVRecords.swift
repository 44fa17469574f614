import PeerBenchCore
import PeerBenchPlugin

/// Splits CSV text into records as RFC 4180 defines them: fields separated by commas,
/// records by CRLF or LF; a field in double quotes may hold commas, line breaks and
/// doubled quotes (`""` is one `"`). Each record keeps the line it starts on, so a
/// problem can be named `file:line` even after a quoted line break.
enum CSVRecords {
    struct Record: Sendable, Equatable {
        /// 1-based line the record starts on.
        var line: Int
        var fields: [String]
        /// Why the record is malformed (the fields are then incomplete); nil when it is not.
        var problem: String?
    }

    static let quote = UInt8(ascii: "\""), comma = UInt8(ascii: ","), cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")

    /// Every record of `text`; blank lines are left out. Never fails: a malformed record
    /// comes back with its `problem`, and reading resumes at the next line.
    // long: one RFC 4180 state machine (quoted field, plain field, record end) whose
    // position, line count and problem every branch moves; apart, they would pass all three.
    static func parse(_ text: [UInt8]) -> [Record] {
        var bytes = text[...]
        // A UTF-8 byte-order mark, as spreadsheet programs write, is not part of the first column's name.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        var records: [Record] = []
        var i = bytes.startIndex
        var line = 1
        let end = bytes.endIndex
        while i < end {
            let start = line
            var fields: [String] = []
            var problem: String?
            fieldLoop: while true {
                var field: [UInt8] = []
                if bytes[i] == quote {
                    i += 1
                    var closed = false
                    while i < end {
                        let c = bytes[i]
                        if c == quote {
                            if i + 1 < end, bytes[i + 1] == quote {
                                field.append(quote)
                                i += 2
                                continue
                            }
                            i += 1
                            closed = true
                            break
                        }
                        if c == lf { line += 1 }
                        field.append(c)
                        i += 1
                    }
                    if !closed {
                        problem = "a quoted field (opened in field \(fields.count + 1)) is never closed"
                        fields.append(String(decoding: field, as: UTF8.self))
                        break fieldLoop
                    }
                    if i < end, bytes[i] != comma, bytes[i] != cr, bytes[i] != lf {
                        problem = "field \(fields.count + 1) has text after its closing quote"
                    }
                } else {
                    while i < end, bytes[i] != comma, bytes[i] != cr, bytes[i] != lf {
                        if bytes[i] == quote, problem == nil {
                            problem =
                                "field \(fields.count + 1) has a quote but does not start with one (RFC 4180: quote the whole field, double the quote)"
                        }
                        field.append(bytes[i])
                        i += 1
                    }
                }
                if problem != nil {
                    // Skip the rest of the physical line: the next record starts after it.
                    while i < end, bytes[i] != lf { i += 1 }
                    if i < end {
                        i += 1
                        line += 1
                    }
                    fields.append(String(decoding: field, as: UTF8.self))
                    break fieldLoop
                }
                fields.append(String(decoding: field, as: UTF8.self))
                if i < end, bytes[i] == comma {
                    i += 1
                    // A comma at the very end of the text leaves one empty last field.
                    if i == end { fields.append("") }
                    if i < end { continue }
                    break fieldLoop
                }
                if i < end, bytes[i] == cr { i += 1 }
                if i < end, bytes[i] == lf { i += 1 }
                line += 1
                break fieldLoop
            }
            if problem == nil, fields.count == 1, fields[0].isEmpty { continue }
            records.append(Record(line: start, fields: fields, problem: problem))
        }
        return records
    }
}
