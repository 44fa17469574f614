import Foundation

/// Reads a records.jsonl line by line in fixed-size chunks, so a journal of any length
/// is never held in memory whole (a 200 000-record journal is ~1.4 GB as parsed JSON).
enum JournalLines {
    /// Calls `body` with each non-empty line's bytes and its 1-based line number.
    /// Returns false when the file cannot be opened.
    static func forEach(path: String, chunkSize: Int = 1 << 20,
                        _ body: (ArraySlice<UInt8>, Int) throws(InputError) -> Void) throws(InputError) -> Bool {
        guard let file = fopen(path, "rb") else { return false }
        defer { fclose(file) }
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        var lineNumber = 0
        while true {
            let got = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, chunkSize, file) }
            if got == 0 { break }
            var start = 0
            for i in 0..<got where chunk[i] == UInt8(ascii: "\n") {
                lineNumber += 1
                if pending.isEmpty {
                    if i > start { try body(chunk[start..<i], lineNumber) }
                } else {
                    pending += chunk[start..<i]
                    try body(pending[...], lineNumber)
                    pending.removeAll(keepingCapacity: true)
                }
                start = i + 1
            }
            pending += chunk[start..<got]
        }
        if !pending.isEmpty { try body(pending[...], lineNumber + 1) }
        return true
    }
}
