import Foundation
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem
import Testing

@testable import RemoteLink

#if canImport(Glibc)
    import Glibc
#endif

/// A live `serve` (the real binary, in its namespace) gets garbage from clients that
/// hold the key — random bytes, truncated frames, oversized lengths, frames of random
/// types, mutated cell requests — each in an authenticated session, and afterwards
/// still serves a well-behaved `run`.
@Suite(.serialized) struct ServeLiveFuzzTests {
    /// Seeded, so a failure replays.
    struct SplitMix {
        var source: SplitMix64
        init(state: UInt64) { source = SplitMix64(state: state) }
        mutating func next() -> UInt64 { source.next() }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
        mutating func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8(truncatingIfNeeded: next()) } }
    }

    static func header(_ type: UInt8, _ length: UInt32) -> [UInt8] {
        [0x50, 0x42, 0x01, type] + withUnsafeBytes(of: length.bigEndian) { Array($0) }
    }

    /// One misbehaving input of `kind`, after a proper HELLO.
    static func garbage(_ kind: Int, _ rng: inout SplitMix) -> [UInt8] {
        switch kind {
        case 0: return rng.bytes(1 + rng.below(4_096))  // random bytes
        case 1:  // a frame cut short
            let body = rng.bytes(1 + rng.below(500))
            return Array((header(0x02, UInt32(body.count + 1 + rng.below(1_000))) + body))
        case 2: return header(UInt8(1 + rng.below(9)), UInt32.max - UInt32(rng.below(1_000)))  // oversized length
        case 3:  // random type and body
            let body = rng.bytes(rng.below(300))
            return header(UInt8(truncatingIfNeeded: rng.next()), UInt32(body.count)) + body
        default:  // a cell request, mutated
            var json = Array(
                #"{"plugin":"tcp","label":"t","cell_id":"c","repetition":1,"seed":"1","rtt_probes":5,"timeout_seconds":1,"environment":"e","distance_label":"1","payload":{"count":10,"size":10}}"#
                    .utf8)
            for _ in 0..<(1 + rng.below(4)) { json[rng.below(json.count)] = UInt8(truncatingIfNeeded: rng.next()) }
            return header(0x02, UInt32(json.count)) + json
        }
    }

    @Test func garbageAfterAuthenticationNeverStopsServe() async throws {
        signal(SIGPIPE, SIG_IGN)
        let rig = try RemoteRig()
        defer { rig.remove() }
        // 10 s, not 1: the well-behaved run at the end is silent towards serve while it
        // measures its floor, which took over 1 s beside the scaffold build in
        // test.sh's first phase (exit 3, "the control session ... ended").
        let serve = try rig.startServe(["--idle-timeout", "10"])
        let key = try PreSharedKey.load(from: rig.keyFile)
        let address = SocketAddress(host: rig.hosts.serverAddress, port: rig.port)
        var rng = SplitMix(state: 12)
        let rounds = 60
        var answeredHello = 0
        for round in 0..<rounds {
            let input = Self.garbage(round % 5, &rng)
            let said = try await BlockingThread.run(name: "fuzz", namespace: rig.hosts.client) { () throws -> Bool in
                let channel = try ControlChannel.connect(to: address, key: key, timeoutSeconds: 10)
                defer { channel.close() }
                try channel.send(.hello(.init(protocolVersions: RemoteLink.controlProtocolVersions, softwareVersion: "fuzz", plugins: ["tcp"])))
                guard case .hello = try channel.receive(timeoutSeconds: 10) else { return false }
                try? channel.write(input)
                // serve answers (ERROR, or nothing) and ends the session; wait for that
                // so the next round does not meet BUSY. A frame cut short gets no answer:
                // serve waits for the rest (its idle timeout is 10 s), so after 1 s of
                // silence the client hangs up mid-frame, and serve must end that session
                // too (before: 5 s, which made the 12 cut-short rounds 60 of the test's 67 s).
                for _ in 0..<3 { if (try? channel.receive(timeoutSeconds: 1)) == nil { break } }
                return true
            }
            if said { answeredHello += 1 }
            // serve logs the session's end once it has cleaned up; only then is it free
            // for the next one (otherwise that one is told BUSY, rightly).
            let deadline = Date().addingTimeInterval(15)
            while serve.stderr.components(separatedBy: "ended after").count - 1 <= round, Date() < deadline, serve.process.isRunning {
                usleep(10_000)
            }
            #expect(serve.process.isRunning, "serve died in round \(round): \(serve.stderr.suffix(2_000))")
            if !serve.process.isRunning { return }
        }
        #expect(answeredHello == rounds)
        // Every session ended, none hung: one "ended after" line per round.
        let ended = serve.stderr.components(separatedBy: "ended after").count - 1
        #expect(ended == rounds, "\(ended) of \(rounds) sessions ended: \(serve.stderr.suffix(2_000))")
        // A well-behaved client is served as before.
        let matrix = try rig.write(RemoteRig.matrix(transports: #"[{"plugin": "tcp", "label": "tcp"}, {"plugin": "udp", "label": "udp"}]"#), "m.json")
        let run = try rig.startRun(matrix, out: rig.dir + "/out")
        #expect(run.wait(seconds: 60) == 0, "run: \(run.stderr)\nserve: \(serve.stderr.suffix(2_000))")
        #expect(try rig.records(rig.dir + "/out").allSatisfy { $0["status"] as? String == "ok" })
    }

    @Test func aClientWithoutACommonVersionIsToldBothLists() async throws {
        let rig = try RemoteRig()
        defer { rig.remove() }
        let serve = try rig.startServe()
        let key = try PreSharedKey.load(from: rig.keyFile)
        let address = SocketAddress(host: rig.hosts.serverAddress, port: rig.port)
        let reply = try await BlockingThread.run(name: "hello", namespace: rig.hosts.client) { () throws -> ControlMessage in
            let channel = try ControlChannel.connect(to: address, key: key, timeoutSeconds: 10)
            defer { channel.close() }
            try channel.send(.hello(.init(protocolVersions: [7, 9], softwareVersion: "future", plugins: ["tcp"])))
            return try channel.receive(timeoutSeconds: 10)
        }
        guard case .error(let code, let message) = reply else {
            Issue.record("expected ERROR, got \(reply)")
            return
        }
        #expect(code == ControlErrorCode.versionMismatch)
        #expect(message == "no common control protocol version: the client speaks 7,9, this serve speaks 1")
        #expect(serve.waitFor("ended after 0 cells", seconds: 10))
    }
}
