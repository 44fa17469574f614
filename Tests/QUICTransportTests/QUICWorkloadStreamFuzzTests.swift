import Foundation
import GnuTLSSupport
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchWorkloads
import Testing
import TransportTestSupport

@testable import QUICTransport

/// The server's stream layer (`ServerSession` and its `ServerWorkloadStreams`) against
/// hostile workload streams, without a network: mutated REQUEST, FRAME, FRAME_PULL and
/// PULL streams delivered in random pieces. Every input ends in an answer or a refusal
/// (`FramingError`, `NotThisCell`), never a trap; nothing a client asks for is queued
/// beyond the limits of docs/protocol/quic.md section 4c.
@Suite("QUIC workload streams: seeded fuzz of the server", .serialized, .timeLimit(.minutes(3)))
struct QUICWorkloadStreamFuzzTests {
    static let token = CellToken(cellID: "fuzz", repetition: 0, seed: 1)

    /// A connection object for the session to queue its answers on; it never sends.
    static func connection() throws -> QUICConnection {
        let credentials = try QUICConnection.tlsCredentials(caFile: certsDirectory + "/ca.pem", certFile: nil, keyFile: nil)
        let tls = try QUICConnection.makeTLS(
            server: false, credentials: credentials, alpn: QUICConfiguration.alpn, verifyName: "127.0.0.1",
            requireClientCertificate: false)
        let address = SocketAddress(host: "127.0.0.1", port: 4433)
        return try QUICConnection(
            .client, local: try SockAddrBox(address), remote: try SockAddrBox(address), tls: tls,
            settings: ConnectionSettings(), tlsContext: .init(isServer: true, caFile: nil, verifyName: nil, alpn: QUICConfiguration.alpn),
            peer: "fuzz")
    }

    static func data(_ n: Int) -> [UInt8] { FrameEncoder.header(.data, length: UInt32(n)) + [UInt8](repeating: 7, count: n) }

    /// Clean workload streams (stream ID, bytes) of a session that opened with HELLO.
    static let clean: [(Int64, [UInt8])] = [
        (4, FrameEncoder.encode(.request(2_000)) + data(100)),
        (8, FrameEncoder.encode(.frame(0)) + data(160) + FrameEncoder.encode(.frame(1)) + data(160)),
        (12, FrameEncoder.encode(.framePull(FramePullBody(frames: 3, frameBytes: 160, periodNanos: 5_000_000)))),
        (16, FrameEncoder.encode(.pull(count: 3, size: 4_096))),
        (20, data(50) + data(0)),
        (24, FrameEncoder.encode(.flow(2)) + data(100) + data(0)),
    ]

    @Test("20 000 mutated workload streams: answered or refused, never a trap, never beyond the limits")
    func fuzzServerWorkloadStreams() async throws {
        // On a thread of its own: 20 000 sessions take seconds of CPU, which must not hold
        // one of the few cooperative threads the other suites' cells run their timers on.
        let (outcomes, findings) = try await BlockingThread.run(name: "quic-workload-fuzz") { try Self.fuzz(inputs: 20_000) }
        print("quic workload stream fuzz: \(outcomes.sorted { $0.key < $1.key })")
        #expect(findings.isEmpty, "\(findings.prefix(10))")
        #expect(outcomes.keys.contains("edge -> FramingError"))
        #expect(outcomes["none -> answered", default: 0] > 100)
    }

    /// Returns the outcomes by mutation and every broken expectation, as text.
    static func fuzz(inputs: Int) throws -> (outcomes: [String: Int], findings: [String]) {
        var rng = WireFuzz(seed: 0x57_0E_A4)
        let pool = clean.map(\.1)
        var outcomes: [String: Int] = [:]
        var findings: [String] = []
        let hello = FrameEncoder.encode(.hello(token))
        for i in 0..<inputs {
            let connection = try Self.connection()
            // The session holds its claim unowned, as the server loop owns it.
            let claim = CellClaim()
            defer { withExtendedLifetime(claim) {} }
            let session = ServerSession(connection: connection, token: token, claim: claim)
            // HELLO first, or (sometimes) after the workload streams: answers wait for it.
            let helloFirst = rng.int(0...3) > 0
            var deliveries: [(Int64, [UInt8])] = []
            var mutation = "none"
            for (stream, bytes) in clean where rng.int(0...1) == 1 {
                let (mutated, how) = rng.mutate(bytes, pool: pool)
                if how != "none" { mutation = how }
                deliveries.append((stream, mutated))
            }
            var outcome = "answered"
            do {
                func deliver(_ stream: Int64, _ bytes: [UInt8], fin: Bool) throws {
                    var offset = 0
                    repeat {
                        let n = min(rng.int(1...700), bytes.count - offset)
                        let last = offset + n == bytes.count
                        try bytes[offset..<offset + n].withUnsafeBytes {
                            try session.received(connection, stream: stream, data: $0, fin: fin && last)
                        }
                        offset += n
                    } while offset < bytes.count
                }
                if helloFirst { try deliver(0, hello, fin: false) }
                for (stream, bytes) in deliveries { try deliver(stream, bytes, fin: true) }
                if !helloFirst { try deliver(0, hello, fin: false) }
                // A second later every FRAME_PULL's frames are due; they queue now.
                session.workload.tick(now: MonotonicClock.now() + 1_000_000_000)
            } catch is FramingError {
                outcome = "FramingError"
            } catch is NotThisCell {
                outcome = "NotThisCell"
            }
            func queued(_ stream: Int64) -> UInt64 { connection.scheduler.existing(stream)?.queuedEnd ?? 0 }
            // Clean streams are all answered: the request with its 2 000 bytes, the frames
            // with their arrivals, the frame pull with 3 frames, the pull with 3 messages.
            if mutation == "none" {
                if outcome != "answered" { findings.append("input \(i): a clean input was refused") }
                for (stream, _) in deliveries {
                    let expected: UInt64 =
                        switch stream {
                        case 4: 5 + 2_000
                        case 8: 5 + 16
                        case 12: 3 * (13 + 5 + 160)
                        case 16: 3 * (5 + 4_096)
                        case 24: 5 + 32
                        default: 0
                        }
                    if queued(stream) != expected { findings.append("input \(i): stream \(stream) queued \(queued(stream)) bytes, not \(expected)") }
                }
            }
            // Whatever the client asked, a response never exceeds 16 MiB and a frame stream's
            // answer never holds more than 100 000 arrivals.
            if queued(4) > UInt64(5 + WorkloadSpec.Limits.messageBytes) { findings.append("input \(i): a \(queued(4))-byte response") }
            if queued(8) > UInt64(5 + 8 * WorkloadSpec.Limits.frames) { findings.append("input \(i): \(queued(8)) bytes of arrivals") }
            outcomes["\(mutation) -> \(outcome)", default: 0] += 1
        }
        return (outcomes, findings)
    }

    /// Hand-made refusals, each naming what is wrong.
    static let refused: [([UInt8], String)] = [
        (FrameEncoder.encode(.request(UInt64(WorkloadSpec.Limits.messageBytes) + 1)), "response"),
        (FrameEncoder.encode(.framePull(FramePullBody(frames: 100_001, frameBytes: 160, periodNanos: 5_000_000))), "out of bounds"),
        (FrameEncoder.encode(.framePull(FramePullBody(frames: 10, frameBytes: 160, periodNanos: 999_999))), "out of bounds"),
        (FrameEncoder.encode(.framePull(FramePullBody(frames: 10, frameBytes: (1 << 20) + 1, periodNanos: 5_000_000))), "out of bounds"),
        (FrameEncoder.encode(.pull(count: 1, size: (64 << 20) + 1)), "out of bounds"),
        (FrameEncoder.encode(.frame(1)), "expected 0"),
        (FrameEncoder.encode(.request(10)) + data(1) + data(1), "second DATA"),
        (FrameEncoder.encode(.frame(0)) + FrameEncoder.encode(.frame(1)), "before the DATA"),
        (data(3) + FrameEncoder.encode(.request(10)), "control frame on bulk stream"),
        (FrameEncoder.encode(.frameArrivals([1])), "server-only"),
        (FrameEncoder.encode(.flow(UInt64(WorkloadSpec.Limits.streams))), "out of bounds"),
        (FrameEncoder.encode(.flow(.max)), "out of bounds"),
        (FrameEncoder.encode(.flow(0)) + FrameEncoder.encode(.flow(1)), "not allowed"),
        (FrameEncoder.encode(.flowReport(FlowReportBody(messages: 1, bytes: 1, firstByteNanos: 1, lastByteNanos: 1))), "not allowed"),
        ([MessageType.flow.rawValue, 0, 0, 0, 9] + [UInt8](repeating: 0, count: 9), "9-byte body"),
    ]

    @Test("out-of-bounds requests are refused by name", arguments: Self.refused.indices)
    func refusals(index: Int) throws {
        let (bytes, says) = Self.refused[index]
        let connection = try Self.connection()
        // The session holds its claim unowned, as the server loop owns it.
        let claim = CellClaim()
        defer { withExtendedLifetime(claim) {} }
        let session = ServerSession(connection: connection, token: Self.token, claim: claim)
        try FrameEncoder.encode(.hello(Self.token)).withUnsafeBytes { try session.received(connection, stream: 0, data: $0, fin: false) }
        let error = #expect(throws: FramingError.self) {
            try bytes.withUnsafeBytes { try session.received(connection, stream: 4, data: $0, fin: false) }
        }
        let text = error?.description ?? "no error"
        #expect(text.contains(says), "\(text)")
    }

    @Test("a request stream ended without its DATA is refused; more than 4 frame or pull streams too")
    func structuralRefusals() throws {
        let connection = try Self.connection()
        // The session holds its claim unowned, as the server loop owns it.
        let claim = CellClaim()
        defer { withExtendedLifetime(claim) {} }
        let session = ServerSession(connection: connection, token: Self.token, claim: claim)
        try FrameEncoder.encode(.hello(Self.token)).withUnsafeBytes { try session.received(connection, stream: 0, data: $0, fin: false) }
        #expect(throws: FramingError.self) {
            try FrameEncoder.encode(.request(10)).withUnsafeBytes { try session.received(connection, stream: 4, data: $0, fin: true) }
        }
        let pull = FrameEncoder.encode(.framePull(FramePullBody(frames: 1, frameBytes: 1, periodNanos: 1_000_000)))
        for k in 0..<4 {
            try pull.withUnsafeBytes { try session.received(connection, stream: Int64(8 + 4 * k), data: $0, fin: true) }
        }
        let fifth = #expect(throws: FramingError.self) {
            try pull.withUnsafeBytes { try session.received(connection, stream: 24, data: $0, fin: true) }
        }
        #expect(fifth?.description.contains("more than 4") == true)
    }

    @Test("flow and pull streams are bounded: 16 of each, pulls of at most 4 message sizes; FLOW_REPORT counts what came")
    func parallelStreamLimits() throws {
        let connection = try Self.connection()
        let claim = CellClaim()
        defer { withExtendedLifetime(claim) {} }
        let session = ServerSession(connection: connection, token: Self.token, claim: claim)
        try FrameEncoder.encode(.hello(Self.token)).withUnsafeBytes { try session.received(connection, stream: 0, data: $0, fin: false) }
        func deliver(_ stream: Int64, _ bytes: [UInt8]) throws {
            try bytes.withUnsafeBytes { try session.received(connection, stream: stream, data: $0, fin: true) }
        }
        var id: Int64 = 4
        func next() -> Int64 {
            defer { id += 4 }
            return id
        }
        for k in 0..<16 {
            let s = next()
            try deliver(s, FrameEncoder.encode(.flow(UInt64(k))) + Self.data(1_000) + Self.data(24))
            // FLOW_REPORT: 5 + 32 bytes, then FIN.
            #expect(connection.scheduler.existing(s)?.queuedEnd == 37)
        }
        let seventeenth = #expect(throws: FramingError.self) { try deliver(next(), FrameEncoder.encode(.flow(0))) }
        #expect(seventeenth?.description.contains("at most 16 flow streams") == true, "\(seventeenth?.description ?? "")")
        for k in 0..<16 {
            try deliver(next(), FrameEncoder.encode(.pull(count: 2, size: UInt64(100 + k % 4))))
        }
        let pull17 = #expect(throws: FramingError.self) { try deliver(next(), FrameEncoder.encode(.pull(count: 2, size: 100))) }
        #expect(pull17?.description.contains("more than 16 pull streams") == true)

        // A fresh session: a fifth message size is refused (each size holds a block of its own).
        let other = try Self.connection()
        let claim2 = CellClaim()
        defer { withExtendedLifetime(claim2) {} }
        let session2 = ServerSession(connection: other, token: Self.token, claim: claim2)
        try FrameEncoder.encode(.hello(Self.token)).withUnsafeBytes { try session2.received(other, stream: 0, data: $0, fin: false) }
        for k in 0..<4 {
            try FrameEncoder.encode(.pull(count: 1, size: UInt64(10 + k))).withUnsafeBytes {
                try session2.received(other, stream: Int64(4 + 4 * k), data: $0, fin: true)
            }
        }
        let fifthSize = #expect(throws: FramingError.self) {
            try FrameEncoder.encode(.pull(count: 1, size: 99)).withUnsafeBytes { try session2.received(other, stream: 20, data: $0, fin: true) }
        }
        #expect(fifthSize?.description.contains("4 message sizes") == true)
    }
}
