import Foundation
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem
import QUICTransport
import Testing
import TransportTestSupport

/// Interoperability with an independent QUIC stack: aioquic (PyPI) running
/// Tests/Interop/peerbench_quic_peer.py, a separate implementation of
/// docs/protocol/quic.md. Both directions complete probes and a bulk transfer
/// with byte counts checked on both sides, over one stream, a stream per message, or
/// four flow streams at once (section 4c, "Parallel streams").
@Suite(.enabled(if: aioquicAvailable, "needs python3 with aioquic (pip install aioquic)"), .timeLimit(.minutes(3)))
struct QUICInteropTests {
    /// `CellContext.loopback`'s identity as the peer's `--cell` (id:repetition:seed):
    /// the peer derives the HELLO token itself, so these tests also check our derivation.
    static let cell = "test:1:1"

    static let peerScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Interop/peerbench_quic_peer.py").path

    /// A running aioquic peer process; its stdout is read line by line.
    final class Peer: @unchecked Sendable {
        let process = Process()
        let output = Pipe()
        private var buffer = Data()

        init(_ args: [String]) throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", QUICInteropTests.peerScript] + args + ["--certs", certsDirectory]
            process.standardOutput = output
            process.standardError = FileHandle.standardError
            try process.run()
        }

        /// The next line of output (blocking; call off the cooperative pool).
        func line() -> String? {
            while true {
                if let nl = buffer.firstIndex(of: 0x0a) {
                    let line = String(decoding: buffer[buffer.startIndex..<nl], as: UTF8.self)
                    buffer.removeSubrange(buffer.startIndex...nl)
                    return line
                }
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { return nil }
                buffer.append(chunk)
            }
        }

        func json() -> [String: Any]? {
            guard let l = line(), let d = l.data(using: .utf8) else { return nil }
            return try? JSONSerialization.jsonObject(with: d) as? [String: Any]
        }

        func stop() {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }

        /// Ends the peer at once (SIGKILL): a stray in the middle of its loop of
        /// handshakes has nothing to finish.
        func kill() {
            if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
    }

    @Test(arguments: [StreamMode.single, .perMessage])
    func ourClientAgainstAioquicServer(mode: StreamMode) async throws {
        let peer = try Peer(["server", "--timeout", "30", "--cell", Self.cell])
        defer { peer.stop() }
        let listening = try await BlockingThread.run(name: "peer") { peer.line() }
        let port = try #require(listening.flatMap { UInt16($0.split(separator: " ").last ?? "") }, "peer said \(listening ?? "nothing")")

        let plugin = try makePlugin(["streams": .string(mode.rawValue)])
        let cell = CellContext.loopback(payload: Payload(count: 300, size: 3000), rttProbes: 10)
        let m = try await withTimeout(30) { try await plugin.runClient(cell, server: SocketAddress(host: "127.0.0.1", port: port)) }
        #expect(m.rttNanos.count == 10)
        #expect(m.delivery == Delivery(sentMessages: 300, receivedMessages: 300, sentBytes: 900_000, receivedBytes: 900_000))
        // What the aioquic server counted itself.
        let summary = try await BlockingThread.run(name: "peer") { peer.json().map { $0.compactMapValues { $0 as? Int } } }
        let s = try #require(summary, "the aioquic server printed no summary")
        #expect(s == ["messages": 300, "bytes": 900_000, "streams": mode == .single ? 1 : 300])
    }

    @Test(arguments: [StreamMode.single, .perMessage])
    func aioquicClientAgainstOurServer(mode: StreamMode) async throws {
        let plugin = try makePlugin()
        let cell = CellContext.loopback(payload: nil, rttProbes: 0)
        let server = try await plugin.startServer(cell)
        defer { server.stop() }
        let peer = try Peer([
            "client", "--port", "\(server.address.port)", "--probes", "10", "--count", "300", "--size", "3000",
            "--streams", mode.rawValue, "--cell", Self.cell,
        ])
        defer { peer.stop() }
        let result = try await withTimeout(30) { try await BlockingThread.run(name: "peer") { peer.json().map { Result(json: $0) } } }
        let r = try #require(result ?? nil, "the aioquic client printed no result")
        #expect(r.rtts == 10)
        #expect(r.receivedMessages == 300)
        #expect(r.receivedBytes == 900_000)
        #expect(r.bulkStreams == (mode == .single ? 1 : 300))
        try await withTimeout(10) { try await server.finish() }
    }

    /// 402 messages over 4 flows: 101, 101, 100 and 100 (the first count % 4 one more).
    static let flowPayload = Payload(count: 402, size: 16_384)
    static let flowCounts = [[0, 101, 101 * 16_384], [1, 101, 101 * 16_384], [2, 100, 100 * 16_384], [3, 100, 100 * 16_384]]

    /// A peer's JSON line: its whole numbers, and its `flows` as `[[index, messages, bytes]]`.
    struct Counts: Sendable {
        var numbers: [String: Int]
        var flows: [[Int]]?

        init(_ json: [String: Any]) {
            numbers = json.compactMapValues { $0 as? Int }
            flows = (json["flows"] as? [Any])?.map { ($0 as? [Any])?.compactMap { $0 as? Int } ?? [] }
        }
    }

    @Test func ourFourFlowStreamsAgainstAioquicServer() async throws {
        let peer = try Peer(["server", "--timeout", "30", "--cell", Self.cell])
        defer { peer.stop() }
        let listening = try await BlockingThread.run(name: "peer") { peer.line() }
        let port = try #require(listening.flatMap { UInt16($0.split(separator: " ").last ?? "") }, "peer said \(listening ?? "nothing")")

        var flowCell = CellContext.loopback(payload: Self.flowPayload, rttProbes: 3)
        flowCell.workload = try WorkloadCells.spec(#"{"name": "p", "kind": "bulk", "direction": "up", "streams": 4}"#)
        let cell = flowCell
        let m = try await withTimeout(30) { try await makePlugin().runClient(cell, server: SocketAddress(host: "127.0.0.1", port: port)) }
        let bytes = 402 * 16_384
        #expect(m.delivery == Delivery(sentMessages: 402, receivedMessages: 402, sentBytes: bytes, receivedBytes: bytes))
        let streams = try #require(m.extra["streams"]?.arrayValue)
        #expect(streams.count == 4 && streams.allSatisfy { ($0["throughput_mbps"]?.doubleValue ?? 0) > 0 }, "\(streams)")
        // What the aioquic server counted on each flow stream, and nothing as the upload's bulk.
        let summary = try #require(
            try await BlockingThread.run(name: "peer") { peer.json().map(Counts.init) }, "the aioquic server printed no summary")
        #expect(summary.flows == Self.flowCounts)
        #expect(summary.numbers == ["messages": 0, "bytes": 0, "streams": 0])
    }

    @Test func aioquicFourFlowStreamsAgainstOurServer() async throws {
        let plugin = try makePlugin()
        let server = try await plugin.startServer(CellContext.loopback(payload: nil, rttProbes: 0))
        defer { server.stop() }
        let peer = try Peer([
            "client", "--port", "\(server.address.port)", "--probes", "3", "--count", "402", "--size", "16384",
            "--flows", "4", "--cell", Self.cell,
        ])
        defer { peer.stop() }
        let result = try await withTimeout(30) { try await BlockingThread.run(name: "peer") { peer.json().map(Counts.init) } }
        let counts = try #require(result ?? nil, "the aioquic client printed no result")
        // Each flow as our server's FLOW_REPORT counted it; the session's own counts stay 0.
        #expect(counts.flows == Self.flowCounts)
        #expect(counts.numbers["received_messages"] == 0 && counts.numbers["bulk_streams"] == 0, "\(counts.numbers)")
        try await withTimeout(10) { try await server.finish() }
    }

    /// A peer that breaks the framing is closed with application error 1 and a
    /// reason naming the violation; the server reports it instead of crashing.
    @Test func serverClosesAPeerThatBreaksTheFraming() async throws {
        let plugin = try makePlugin()
        let cell = CellContext.loopback(payload: nil, rttProbes: 0)
        let server = try await plugin.startServer(cell)
        defer { server.stop() }
        let peer = try Peer(["client", "--port", "\(server.address.port)", "--violate", "--cell", Self.cell])
        defer { peer.stop() }
        let closed = try await withTimeout(30) { try await BlockingThread.run(name: "peer") { peer.json().map { "\($0)" } } }
        let text = try #require(closed ?? nil, "the aioquic client printed nothing")
        #expect(text.contains("\"error_code\": 1"), "\(text)")
        #expect(text.contains("unknown frame type 0x7f"), "\(text)")
        await #expect { try await withTimeout(10) { try await server.finish() } } throws: {
            "\($0)".contains("protocol violation: unknown frame type 0x7f")
        }
    }

    struct Result: Sendable {
        var rtts: Int, receivedMessages: Int, receivedBytes: Int, bulkStreams: Int
        init(json: [String: Any]) {
            rtts = (json["rtt_ms"] as? [Any])?.count ?? -1
            receivedMessages = json["received_messages"] as? Int ?? -1
            receivedBytes = json["received_bytes"] as? Int ?? -1
            bulkStreams = json["bulk_streams"] as? Int ?? -1
        }
    }
}

/// Whether `python3 -c "import aioquic"` works here.
let aioquicAvailable: Bool = {
    (try? run("/usr/bin/env", ["python3", "-c", "import aioquic"]).0) == 0
}()
