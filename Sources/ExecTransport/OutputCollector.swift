import Foundation

/// Collects what a child process writes to one pipe, on a thread of its own so a
/// chatty child never blocks on a full pipe, and lets callers wait for a first line
/// or the end of the stream. Keeps at most `limit` bytes (the rest is counted).
final class OutputCollector: @unchecked Sendable {
    private let condition = NSCondition()
    private var data = Data()
    private var dropped = 0
    private var ended = false
    private let limit: Int

    init(limit: Int) { self.limit = limit }

    /// Starts the reader thread on `handle`; it ends at end of file.
    func start(reading handle: FileHandle, name: String) {
        let thread = Thread { [self] in
            while true {
                let chunk = handle.availableData
                condition.lock()
                if chunk.isEmpty {
                    ended = true
                    condition.broadcast()
                    condition.unlock()
                    return
                }
                let room = max(0, limit - data.count)
                data.append(chunk.prefix(room))
                dropped += chunk.count - min(room, chunk.count)
                condition.broadcast()
                condition.unlock()
            }
        }
        thread.name = name
        thread.start()
    }

    /// Everything read so far, as text (invalid UTF-8 replaced).
    var text: String {
        condition.lock()
        defer { condition.unlock() }
        return String(decoding: data, as: UTF8.self) + (dropped > 0 ? "\n[... \(dropped) more bytes]" : "")
    }

    /// Waits until the writer closed the pipe or `deadline` (a wall-clock date) passes.
    @discardableResult
    func waitForEnd(until deadline: Date) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !ended { if !condition.wait(until: deadline) { return ended } }
        return true
    }

    /// The first complete line; nil when the stream ended without one or the deadline passed.
    func waitForFirstLine(until deadline: Date) -> (line: String?, ended: Bool) {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let nl = data.firstIndex(of: UInt8(ascii: "\n")) {
                return (String(decoding: data[data.startIndex..<nl], as: UTF8.self), false)
            }
            if ended { return (nil, true) }
            if !condition.wait(until: deadline) { return (nil, ended) }
        }
    }
}

extension String {
    /// The first `count` non-empty lines, each shortened, for quoting in an error.
    func firstLines(_ count: Int = 5, width: Int = 300) -> String {
        let lines = split(separator: "\n", omittingEmptySubsequences: true).prefix(count).map { line -> String in
            line.count > width ? String(line.prefix(width)) + "…" : String(line)
        }
        return lines.joined(separator: " | ")
    }
}
