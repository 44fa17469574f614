import Foundation
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem

/// Reads a file one line at a time through a fixed buffer, so a journal of any size
/// is read in bounded memory (merge, compare and report of 200 000 records must not
/// hold them all). The one line reader of the project: merge, compare and report use it.
final class JournalLineReader {
    let path: String
    /// 1-based number of the line last returned.
    private(set) var lineNumber = 0
    private let fd: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    private var eof = false
    private static let chunk = 1 << 20

    /// nil when the file cannot be opened (absent: nothing to read).
    init?(path: String) {
        self.path = path
        fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { return nil }
    }

    deinit { close(fd) }

    /// The next line without its newline (a last line without one is returned too:
    /// the caller decides whether it is torn); nil at the end of the file.
    func next() throws -> ArraySlice<UInt8>? {
        while true {
            if let nl = newline(from: start) {
                defer { start = nl + 1 }
                lineNumber += 1
                return buffer[start..<nl]
            }
            if eof {
                guard start < buffer.count else { return nil }
                defer { start = buffer.count }
                lineNumber += 1
                return buffer[start...]
            }
            // A new buffer: the unfinished line, then the next chunk read straight after it.
            // Lines already returned are slices of the old buffer, which they keep alive
            // (a batch may still be decoding them): nothing is copied but the one partial
            // line, and no byte is zeroed before read() fills it.
            let tail = buffer.count - start
            var failure: (any Error)?
            buffer = buffer.withUnsafeBufferPointer { old in
                [UInt8](unsafeUninitializedCapacity: tail + JournalLineReader.chunk) { b, count in
                    if tail > 0 { _ = b.initialize(fromContentsOf: old[start...]) }
                    count = tail
                    do {
                        count += try syscall("read(\(path))") { read(fd, b.baseAddress! + tail, JournalLineReader.chunk) }
                    } catch { failure = error }
                }
            }
            if let failure { throw failure }
            if buffer.count == tail { eof = true }
            start = 0
        }
    }

    /// The index of the first newline at or after `from` (memchr: a tenth of a byte loop's time).
    private func newline(from: Int) -> Int? {
        guard from < buffer.count else { return nil }
        return buffer.withUnsafeBufferPointer { b in
            memchr(b.baseAddress! + from, Int32(UInt8(ascii: "\n")), b.count - from).map {
                UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) - b.baseAddress!
            }
        }
    }

    /// The next line that is not empty; nil at the end of the file.
    func nextNonEmpty() throws -> ArraySlice<UInt8>? {
        while let line = try next() {
            if !line.isEmpty { return line }
        }
        return nil
    }
}

/// Callback-style reading for compare: each non-empty line with its 1-based number.
public enum JournalLines {
    /// Returns false when the file cannot be opened.
    public static func forEach(path: String, _ body: (ArraySlice<UInt8>, Int) throws(InputError) -> Void) throws(InputError) -> Bool {
        guard let reader = JournalLineReader(path: path) else { return false }
        while true {
            let line: ArraySlice<UInt8>?
            do { line = try reader.nextNonEmpty() } catch {
                throw InputError(source: path, "read failed after line \(reader.lineNumber): \(error)")
            }
            guard let line else { return true }
            try body(line, reader.lineNumber)
        }
    }

    /// Lines decoded a batch at a time on every core (`decode` must be pure), handed to
    /// `body` in file order with their 1-based numbers; the next batch is read and
    /// decoded while `body` takes this one. Returns false when the file cannot be opened.
    public static func forEach<T: Sendable>(
        path: String, decode: @Sendable (ArraySlice<UInt8>) -> T,
        _ body: (T, Int) throws(InputError) -> Void
    ) throws(InputError) -> Bool {
        guard let reader = JournalLineReader(path: path) else { return false }
        // Batches are made one at a time (BatchPipeline), so the reader is never used by two threads.
        nonisolated(unsafe) let lines = reader
        try withoutActuallyEscaping(decode) { (decode) throws(InputError) in
            try BatchPipeline.run(produce: { _ -> Result<[(T, Int)], InputError>? in
                var batch: [(line: ArraySlice<UInt8>, number: Int)] = []
                batch.reserveCapacity(batchSize)
                while batch.count < batchSize {
                    let line: ArraySlice<UInt8>?
                    do { line = try lines.nextNonEmpty() } catch {
                        return .failure(InputError(source: path, "read failed after line \(lines.lineNumber): \(error)"))
                    }
                    guard let line else { break }
                    batch.append((line, lines.lineNumber))
                }
                guard !batch.isEmpty else { return nil }
                return .success(OrderedParallelMap.map(batch) { (decode($0.line), $0.number) })
            }) { (batch) throws(InputError) in
                for (d, number) in try batch.get() { try body(d, number) }
            }
        }
        return true
    }

    /// Lines per batch: enough to keep every core busy, few enough to bound memory with
    /// three batches alive at once (read, decoded, being consumed: ~2 MB of records each).
    static let batchSize = 1024
}

/// Writes a file through a 1 MiB buffer and flushes it to disk once at the end
/// (merge writes hundreds of thousands of lines; one fdatasync each took minutes).
final class BufferedFileWriter {
    let path: String
    private let fd: Int32
    private var buffer: [UInt8] = []

    /// Creates or truncates `path`.
    init(path: String) throws {
        self.path = path
        fd = try syscall("open(\(path))") { open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
        buffer.reserveCapacity(1 << 20)
    }

    deinit { close(fd) }

    func write<C: Collection>(line: C) throws where C.Element == UInt8 {
        buffer.append(contentsOf: line)
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count >= 1 << 20 { try flush() }
    }

    func write(line: String) throws { try write(line: Array(line.utf8)) }

    func flush() throws {
        try writeAll(fd, buffer, function: "write(\(path))")
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes what is buffered and waits until it is on disk.
    func finish() throws {
        try flush()
        _ = try syscall("fsync(\(path))") { fsync(fd) }
    }
}
