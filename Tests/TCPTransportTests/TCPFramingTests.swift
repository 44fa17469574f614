import PeerBenchCore
import PeerBenchPlugin
import PeerBenchStreams
import PeerBenchSystem
import PeerBenchWorkloads
import Testing
import TransportTestSupport

@testable import TCPTransport

#if canImport(Glibc)
    import Glibc
#endif

@Suite("TCP framing", .timeLimit(.minutes(3)))
struct TCPFramingTests {
    /// Frames cut at every awkward boundary: a reader with a tiny buffer must still
    /// count DATA exactly and return control frames intact.
    @Test("the reader parses frames split across reads and buffer refills")
    func splitFrames() throws {
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        let writer = Socket(adopting: fds[0])
        let reading = Socket(adopting: fds[1])

        var stream: [UInt8] = TCPHello.frame()
        func data(_ n: Int) -> [UInt8] {
            var f = [UInt8](repeating: 0, count: 5)
            f.withUnsafeMutableBytes { StreamFraming.writeHeader(.data, bodyLength: n, to: $0.baseAddress!) }
            return f + [UInt8](repeating: 0xAB, count: n)
        }
        stream += data(3) + data(0) + StreamFraming.controlFrame(.probe, [UInt32(7), UInt64(42)]) + data(70_000)
        stream += StreamFraming.controlFrame(.end, [UInt64(3), UInt64(70_003)])
        // Odd-sized writes so frames straddle recv() boundaries.
        var off = 0
        var step = 1
        while off < stream.count {
            let n = min(step, stream.count - off)
            _ = try stream[off..<(off + n)].withUnsafeBytes { try writer.sendAll($0) }
            off += n
            step = step * 3 % 1_013 + 1
        }
        writer.shutdown()

        let reader = StreamFrameReader(reading, capacity: 100)
        var count = ReceivedMessages()
        var types: [MessageType] = []
        var probeSeq: UInt32 = 0
        var probeTime: UInt64 = 0
        var endFields: (UInt64, UInt64) = (0, 0)
        while let f = try reader.nextControl(counting: &count) {
            types.append(f.type)
            if f.type == .probe {
                probeSeq = f.body.readBE(UInt32.self, at: 0)
                probeTime = f.body.readBE(UInt64.self, at: 4)
            }
            if f.type == .end { endFields = (f.body.readBE(UInt64.self, at: 0), f.body.readBE(UInt64.self, at: 8)) }
        }
        #expect(types == [.hello, .probe, .end])
        #expect(probeSeq == 7 && probeTime == 42)
        #expect(endFields == (3, 70_003))
        #expect(count.messages == 3 && count.bytes == 70_003)
        // Each message is stamped when its last byte arrived; the span runs between them.
        let first = try #require(count.firstMessageAt), last = try #require(count.lastMessageAt)
        #expect(last >= first && count.spanNanos == last - first)
    }

    @Test("an oversized or unknown frame is a protocol error")
    func badFrames() throws {
        for bad in [[0x04, 0x00, 0x00, 0x01, 0x10] as [UInt8], [0, 0, 0, 0, 0x7F]] {
            var fds: [Int32] = [0, 0]
            #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
            let writer = Socket(adopting: fds[0])
            let reader = StreamFrameReader(Socket(adopting: fds[1]))
            _ = try bad.withUnsafeBytes { try writer.sendAll($0) }
            var count = ReceivedMessages()
            #expect(throws: TransportError.self) { _ = try reader.nextControl(counting: &count) }
        }
    }
}
