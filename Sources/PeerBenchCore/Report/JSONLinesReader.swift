import Foundation

/// Reads a JSONL file one line at a time with a fixed-size buffer, so a journal of
/// hundreds of thousands of records is never held in memory at once.
struct JSONLinesReader {
    let path: String
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false
    /// 1-based number of the line last returned.
    private(set) var lineNumber = 0

    init(path: String) throws(ReportError) {
        self.path = path
        guard let h = FileHandle(forReadingAtPath: path) else {
            throw ReportError("\(path): cannot be read (\(String(cString: strerror(errno))))")
        }
        handle = h
    }

    /// The next non-empty line's bytes (without the newline), or nil at the end.
    /// A last line without a newline is returned too: the caller decides if it is torn.
    mutating func nextLine() throws(ReportError) -> ArraySlice<UInt8>? {
        while true {
            if let nl = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffer[start..<nl]
                start = nl + 1
                lineNumber += 1
                if line.isEmpty { continue }
                return line
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                let line = buffer[start...]
                start = buffer.count
                lineNumber += 1
                return line
            }
            // Keep the partial line, drop what was consumed, then read more.
            buffer.removeSubrange(0..<start)
            start = 0
            let chunk: Data?
            do { chunk = try handle.read(upToCount: 1 << 20) } catch {
                throw ReportError("\(path): read failed at line \(lineNumber + 1): \(error.localizedDescription)")
            }
            if let chunk, !chunk.isEmpty { buffer.append(contentsOf: chunk) } else { atEnd = true }
        }
    }

    func close() { try? handle.close() }
}

/// A problem with the report's input or output that the user can act on; the
/// message names the folder or file at fault.
public struct ReportError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
