import Foundation
import PeerBenchWorkloads
import Testing

@testable import PeerBenchPlugin
@testable import PeerBenchStreams

/// The stream server answers every probe one read brought with one write. With Nagle
/// on, one write per echo held all but the first echo of a pipelined batch until the
/// client's next batch acknowledged it: a whole extra round over the emulated link
/// (83 ms instead of 49, docs/FIELD-STUDY.md). An in-memory stream stands in for the
/// socket: what is under test is the server's reads and writes, not TCP.
@Suite
struct StreamEchoBatchingTests {
    /// Hands out scripted reads, one chunk per `readSome`, and records every write.
    final class ScriptedStream: ByteStream {
        var reads: [[UInt8]]
        var writes: [[UInt8]] = []
        init(reads: [[UInt8]]) { self.reads = reads }
        func readSome(_ buffer: UnsafeMutableRawBufferPointer) throws -> Int? {
            guard !reads.isEmpty else { return 0 }
            let chunk = reads.removeFirst()
            buffer.copyBytes(from: chunk)
            return chunk.count
        }
        func writeAll(_ bytes: UnsafeRawBufferPointer) throws -> Bool {
            writes.append(Array(bytes))
            return true
        }
        func shutdown() {}
    }

    static func frame(_ type: MessageType, _ body: [UInt8] = []) -> [UInt8] {
        var f = [UInt8](repeating: 0, count: StreamFraming.headerSize)
        f.withUnsafeMutableBytes { StreamFraming.writeHeader(type, bodyLength: body.count, to: $0.baseAddress!) }
        return f + body
    }

    static func probe(_ seq: UInt8) -> [UInt8] { frame(.probe, [0, 0, 0, seq] + [UInt8](repeating: seq, count: 8)) }

    @Test("ten probes in one read are echoed in one write; a read of five then one of five, in two")
    func oneWritePerRead() throws {
        let together = ScriptedStream(reads: [(0..<10).flatMap { Self.probe($0) }, Self.frame(.goodbye)])
        try StreamWorkloadServer.serve("tcp", over: together, greeting: nil)
        #expect(together.writes.count == 1)
        #expect(together.writes.first == (0..<10).flatMap { Self.frame(.echo, Array(Self.probe($0).dropFirst(StreamFraming.headerSize))) })

        let split = ScriptedStream(reads: [(0..<5).flatMap { Self.probe($0) }, (5..<10).flatMap { Self.probe($0) }, Self.frame(.goodbye)])
        try StreamWorkloadServer.serve("tcp", over: split, greeting: nil)
        #expect(split.writes.map(\.count) == [5 * 17, 5 * 17])
    }

    @Test("a probe whose frame is cut by the read boundary is answered after the read that completes it")
    func partialFrame() throws {
        let bytes = (0..<3).flatMap { Self.probe($0) }
        let stream = ScriptedStream(reads: [Array(bytes[0..<25]), Array(bytes[25...]), Self.frame(.goodbye)])
        try StreamWorkloadServer.serve("tcp", over: stream, greeting: nil)
        // The first read holds probe 0 and part of probe 1: probe 0 is answered alone.
        #expect(stream.writes.map(\.count) == [17, 2 * 17])
    }
}
