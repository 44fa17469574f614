import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSockets
import PeerBenchStreams
import PeerBenchSystem
import PeerBenchWorkloads
import Testing
import TransportTestSupport

@testable import TCPTransport

#if canImport(Glibc)
    import Glibc
#endif

/// The resume protocol (docs/protocol/tcp.md, "Reconnect") against the tcp plugin's
/// real server on loopback: a hand-driven client cuts its connection inside a DATA
/// frame and resumes on a new one; the server's offset counts whole frames only.
@Suite("Stream resume: server offset across connections", .timeLimit(.minutes(2)))
struct StreamResumeTests {
    static let options: TCPOptions = {
        var o = TCPOptions()
        o.userTimeout = TCPUserTimeout(milliseconds: 1_000)
        o.reconnect = .default
        return o
    }()

    static func frame(_ type: MessageType, _ body: [UInt8]) -> [UInt8] {
        var f = [UInt8](repeating: 0, count: StreamFraming.headerSize)
        f.withUnsafeMutableBytes { StreamFraming.writeHeader(type, bodyLength: body.count, to: $0.baseAddress!) }
        return f + body
    }

    static let data = frame(.data, [UInt8](repeating: 7, count: 100))

    /// A connected socket to `server` with HELLO answered.
    func connect(_ server: SocketAddress) throws -> (Socket, StreamWorkloadClient) {
        let s = try Socket(family: server.family, type: Int32(SOCK_STREAM.rawValue))
        try s.setReceiveTimeout(nanoseconds: 5_000_000_000)
        try s.connect(server)
        return (s, StreamWorkloadClient("tcp", over: s))
    }

    func write(_ s: Socket, _ bytes: [UInt8]) throws {
        #expect(try bytes.withUnsafeBytes { try s.sendAll($0) })
    }

    @Test(
        "a cut inside DATA frame 11: RESUMED says 10 messages, 1000 bytes; the END after the rest reports 15 exactly",
        arguments: [true, false])
    func resumeAfterCut(closeFirst: Bool) async throws {
        let cell = makeCell(payload: Payload(count: 15, size: 100), probes: 0, seconds: 20)
        let plugin = TCPPlugin(Self.options)
        let server = try await plugin.startServer(cell)
        let (first, client1) = try connect(server.address)
        try client1.greet(TCPHello.greeting)
        let token = try client1.requestResumption()
        // Ten whole frames and 55 bytes of the eleventh (its header and 50 body bytes).
        try write(first, (0..<10).flatMap { _ in Self.data } + Array(Self.data.prefix(55)))
        // Either the old connection is gone before the new one comes, or it is still
        // open (the server has not noticed) and the RESUME must end it.
        if closeFirst { first.close() }
        try await Task.sleep(nanoseconds: 100_000_000)

        let (second, client2) = try connect(server.address)
        let resumed = try client2.resume(token, greeting: TCPHello.greeting)
        #expect(resumed == (messages: 10, bytes: 1_000), "the half frame is not counted")
        if !closeFirst {
            var byte: UInt8 = 0
            let n = try? withUnsafeMutableBytes(of: &byte) { try first.receive($0) }
            #expect(n == 0 || n == nil, "the replaced connection was shut down by the server")
            first.close()
        }
        try write(
            second,
            (0..<5).flatMap { _ in Self.data }
                + StreamFraming.controlFrame(.end, [UInt64(15), UInt64(1_500), StreamFraming.endFlagReceiverSpan]))
        var ignored = ReceivedMessages()
        let reader = StreamFrameReader(second)
        let report = try #require(try reader.nextControl(counting: &ignored))
        #expect(report.type == .report)
        let decoded = try #require(StreamReport(Array(report.body)))
        #expect(decoded.messages == 15 && decoded.bytes == 1_500, "every message once: \(decoded)")
        try write(second, Self.frame(.goodbye, []))
        #expect(try reader.nextControl(counting: &ignored) == nil)
        second.close()
        try await server.finish()
    }

    @Test("a RESUME with an unknown token, or without RESUMABLE first, is refused: the server closes that connection")
    func unknownToken() async throws {
        let cell = makeCell(payload: Payload(count: 1, size: 100), probes: 0, seconds: 20)
        let plugin = TCPPlugin(Self.options)
        let server = try await plugin.startServer(cell)
        let (first, client1) = try connect(server.address)
        try client1.greet(TCPHello.greeting)
        let token = try client1.requestResumption()
        let (second, client2) = try connect(server.address)
        #expect { _ = try client2.resume(token &+ 1, greeting: TCPHello.greeting) } throws: {
            "\($0)".contains("instead of answering RESUME")
        }
        second.close()
        // A RESUME before any token was handed out is refused alike.
        let (third, client3) = try connect(server.address)
        #expect { _ = try client3.resume(42, greeting: TCPHello.greeting) } throws: { "\($0)".contains("instead of answering RESUME") }
        third.close()
        // The first connection carries on: one message, END, REPORT, GOODBYE.
        var m = TransportMeasurement()
        try client1.bulk(Payload(count: 1, size: 100), into: &m)
        #expect(m.status == .ok && m.delivery?.receivedMessages == 1)
        try client1.goodbye()
        first.close()
        try await server.finish()
    }

    @Test("the plugin with reconnect on loopback: no loss, no reconnect, exact counts")
    func pluginWithoutLoss() async throws {
        let payload = Payload(count: 2_000, size: 4_096)
        let cell = makeCell(payload: payload, probes: 5)
        let plugin = TCPPlugin(Self.options)
        let server = try await plugin.startServer(cell)
        let m = try await plugin.runClient(cell, server: server.address)
        try await server.finish()
        #expect(m.status == .ok)
        #expect(m.reconnects == [])
        #expect(m.delivery == Delivery(sentMessages: 2_000, receivedMessages: 2_000, sentBytes: 2_000 * 4_096, receivedBytes: 2_000 * 4_096))
        #expect(m.rttNanos.count == 5)
    }

    @Test("20 000 mutated resumable sessions, each followed by a RESUME on a second connection: GOODBYE or a protocol error, never a trap or a hang")
    func fuzzResumable() {
        let f = Self.frame
        let clean: [[UInt8]] = [
            TCPHello.frame(), f(.resumable, []), f(.resume, UInt64(7).wireBytes), f(.resume, [1, 2, 3]),
            f(.probe, UInt32(3).wireBytes + UInt64(42).wireBytes), Self.data, Array(Self.data.prefix(40)),
            f(.end, UInt64(2).wireBytes + UInt64(200).wireBytes + UInt64(1).wireBytes), f(.goodbye, []),
        ]
        // Frames valid anywhere after RESUMABLE: a clean session is made of these.
        let valid = [clean[4], clean[5], clean[7]]
        var rng = WireFuzz(seed: 0x27_2E5)
        var outcomes: [String: Int] = [:]
        for i in 0..<20_000 {
            let host = StreamResumeHost()
            let body = (0..<rng.int(0...4)).flatMap { _ in valid[rng.int(0...valid.count - 1)] }
            let (bytes, mutation) = rng.mutate(TCPHello.frame() + f(.resumable, []) + body + f(.goodbye, []), pool: clean)
            var outcome = "goodbye"
            do {
                try StreamWorkloadServer.serve(
                    "tcp", over: StreamServerFuzzTests.ReplayStream(bytes, rng: WireFuzz(seed: UInt64(i))),
                    greeting: TCPHello.greeting, resume: host)
            } catch {
                outcome = "error"
            }
            // A second connection of the same "client": a RESUME with a guessed token and
            // more mutated frames. The first connection has ended, so nothing waits.
            let (again, _) = rng.mutate(TCPHello.frame() + f(.resume, UInt64(rng.int(0...3)).wireBytes) + body + f(.goodbye, []), pool: clean)
            do {
                try StreamWorkloadServer.serve(
                    "tcp", over: StreamServerFuzzTests.ReplayStream(again, rng: WireFuzz(seed: UInt64(i) + 1)),
                    greeting: TCPHello.greeting, resume: host)
                outcome += " -> goodbye"
            } catch {
                outcome += " -> error"
            }
            #expect(host.reconnects == 0, "input \(i): a guessed token (0-3) is never the random one")
            if mutation == "none" { #expect(outcome.hasPrefix("goodbye"), "input \(i): a clean session ends in GOODBYE") }
            outcomes["\(mutation): \(outcome)", default: 0] += 1
        }
        print("resumable stream server fuzz: \(outcomes.sorted { $0.key < $1.key })")
        #expect(outcomes.keys.contains { $0.hasPrefix("none: goodbye") })
    }
}
