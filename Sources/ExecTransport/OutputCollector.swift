import Foundation
import Synchronization

/// Collects what a child process writes to one pipe, on a thread of its own so a
/// chatty child never blocks on a full pipe, and lets callers wait for a first line
/// or the end of the stream. Keeps at most `limit` bytes (the rest is counted).
final class OutputCollector: Sendable {
    /// What has been read so far.
    private struct State {
        var data = Data()
        var dropped = 0
        var ended = false
    }

    /// Waiters sleep on `condition`; `state` changes only while it is held, so no
    /// wake-up is missed. The Mutex is what lets the compiler check the state (it is
    /// never contended: every use is under `condition`).
    private let condition = NSCondition()
    private let state = Mutex(State())
    private let limit: Int

    init(limit: Int) { self.limit = limit }

    /// Starts the reader thread on `handle`; it ends at end of file.
    func start(reading handle: FileHandle, name: String) {
        let thread = Thread { [self] in
            while true {
                let chunk = handle.availableData
                condition.lock()
                let ended = state.withLock { s in
                    if chunk.isEmpty {
                        s.ended = true
                        return true
                    }
                    let room = max(0, limit - s.data.count)
                    s.data.append(chunk.prefix(room))
                    s.dropped += chunk.count - min(room, chunk.count)
                    return false
                }
                condition.broadcast()
                condition.unlock()
                if ended { return }
            }
        }
        thread.name = name
        thread.start()
    }

    /// Everything read so far, as text (invalid UTF-8 replaced).
    var text: String {
        condition.lock()
        defer { condition.unlock() }
        return state.withLock { s in
            String(decoding: s.data, as: UTF8.self) + (s.dropped > 0 ? "\n[... \(s.dropped) more bytes]" : "")
        }
    }

    /// Waits until the writer closed the pipe or `deadline` (a wall-clock date) passes.
    @discardableResult
    func waitForEnd(until deadline: Date) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !state.withLock({ $0.ended }) {
            if !condition.wait(until: deadline) { return state.withLock { $0.ended } }
        }
        return true
    }

    /// The first complete line; nil when the stream ended without one or the deadline passed.
    func waitForFirstLine(until deadline: Date) -> (line: String?, ended: Bool) {
        condition.lock()
        defer { condition.unlock() }
        while true {
            let (line, ended) = state.withLock { s -> (String?, Bool) in
                guard let nl = s.data.firstIndex(of: UInt8(ascii: "\n")) else { return (nil, s.ended) }
                return (String(decoding: s.data[s.data.startIndex..<nl], as: UTF8.self), false)
            }
            if let line { return (line, false) }
            if ended { return (nil, true) }
            if !condition.wait(until: deadline) { return (nil, state.withLock { $0.ended }) }
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
