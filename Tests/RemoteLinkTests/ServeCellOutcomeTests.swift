import Foundation
import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSockets
import PeerBenchSystem
import Testing
import TransportTestSupport

@testable import RemoteLink

/// How serve reports a cell it cut short, and the plugin's own payload check on the
/// serve path (issue 24, finding 6).
@Suite(.serialized, .timeLimit(.minutes(2))) struct ServeCellOutcomeTests {
    /// Its server returns normally once stopped, as the real udp and stream servers do
    /// (`SessionServer`), and it refuses messages above 1 000 bytes in `check(payload:)`.
    struct ReturnsWhenStopped: TransportPlugin {
        static let descriptor = PluginDescriptor(name: "tcp", summary: "stand-in", options: [])
        init(options: PluginOptions) throws {}
        func check(payload: Payload, path: JSONPath) -> [InputProblem] {
            payload.size > 1_000 ? [InputProblem(path: path.description, "stand-in: a message of \(payload.size) bytes is above 1000")] : []
        }
        func startServer(_ cell: CellContext) async throws -> any TransportServer {
            let stopper = CellCancellation()
            let task = Task<Void, any Error> {
                while !stopper.isCancelled && !cell.cancellation.isCancelled { try? await Task.sleep(nanoseconds: 5_000_000) }
            }
            return SessionServer(address: SocketAddress(host: "127.0.0.1", port: 9), stopper: stopper, task: task)
        }
        func runClient(_ cell: CellContext, server: SocketAddress) async throws -> TransportMeasurement { throw TransportError("not run") }
    }

    static func start(timeout: Double = 30, payload: Payload = Payload(count: 10, size: 100)) async throws -> ServeCell {
        try await ServeCell.start(
            ServeLimitsTests.request("tcp", timeout: timeout, payload: payload),
            registry: PluginRegistry([ReturnsWhenStopped.self]), endpoint: Endpoint(address: "127.0.0.1"),
            peer: "127.0.0.1", limits: ServeLimits())
    }

    @Test func aCellWhoseClientWentAwayIsFailedNotOK() async throws {
        let cell = try await Self.start()
        // What ServeSession does when the control connection closes mid-cell.
        after(milliseconds: 100) { cell.stop() }
        let result = await cell.result()
        #expect(result.status == "failed")
        #expect(result.error?.contains("the client went away") == true, "\(result.error ?? "no error")")
    }

    @Test func aCellStoppedAtItsDeadlineIsATimeoutNotOK() async throws {
        let cell = try await Self.start(timeout: 0.3)
        let result = await cell.result()
        #expect(result.status == "timeout")
        #expect(result.seconds >= 0.3)
    }

    @Test func thePluginsOwnPayloadCheckAppliesOnTheServePath() async throws {
        do {
            _ = try await Self.start(payload: Payload(count: 1, size: 1 << 30))
            Issue.record("serve accepted a 1 GiB message the plugin refuses")
        } catch {
            #expect("\(error)".contains("1073741824 bytes is above 1000"), "\(error)")
        }
    }

    /// serve reads the cell's workload by the matrix's rules and its plugin's check: the
    /// stand-in (the default check) runs the upload only.
    @Test func aWorkloadThePluginRefusesOrAMalformedOneIsRefusedNamingIt() async throws {
        for (workload, words) in [
            (#""download""#, "$.workload: tcp: the bulk workload down is unsupported"),
            (#"{"name": "x", "kind": "isochronous", "frameBytes": 1, "periodMs": 0, "durationSeconds": 1}"#, "$.workload.periodMs"),
        ] {
            var request = ServeLimitsTests.request("tcp")
            request.workload = try JSONParser.parse(workload)
            do {
                _ = try await ServeCell.start(
                    request, registry: PluginRegistry([ReturnsWhenStopped.self]), endpoint: Endpoint(address: "127.0.0.1"),
                    peer: "127.0.0.1", limits: ServeLimits())
                Issue.record("serve started a cell with workload \(workload)")
            } catch {
                #expect("\(error)".contains(words), "\(error)")
            }
        }
        // The upload, named or not, starts.
        var request = ServeLimitsTests.request("tcp")
        request.workload = try JSONParser.parse(#""upload""#)
        let cell = try await ServeCell.start(
            request, registry: PluginRegistry([ReturnsWhenStopped.self]), endpoint: Endpoint(address: "127.0.0.1"),
            peer: "127.0.0.1", limits: ServeLimits())
        cell.stop()
        _ = await cell.result()
    }
    /// serve bounds the app loop a client asks for: a cost above 10 ms a message would
    /// hold the server's reads for as long as the client liked. What is within it reaches
    /// the server's plugin, as the matrix said.
    @Test func anAppLoopAboveTheBoundIsRefusedAndOneWithinReachesThePlugin() async throws {
        var request = ServeLimitsTests.request("tcp")
        request.appLoop = AppLoop(sendNanos: 0, receiveNanos: 10_000_001)
        do {
            _ = try await ServeCell.start(
                request, registry: PluginRegistry([ReturnsWhenStopped.self]), endpoint: Endpoint(address: "127.0.0.1"),
                peer: "127.0.0.1", limits: ServeLimits())
            Issue.record("serve started a cell with an app loop of 10 s a message")
        } catch {
            #expect("\(error)".contains("$.app_loop: at most 10000 µs per message"), "\(error)")
        }
        request.appLoop = AppLoop(sendNanos: 17_500, receiveNanos: 35_000)
        let cell = try await ServeCell.start(
            request, registry: PluginRegistry([ReturnsWhenStopped.self]), endpoint: Endpoint(address: "127.0.0.1"),
            peer: "127.0.0.1", limits: ServeLimits())
        cell.stop()
        _ = await cell.result()
        // The request's JSON spells the costs in nanoseconds under `app_loop`.
        let text = String(decoding: try JSONEncoder().encode(request), as: UTF8.self)
        #expect(text.contains(#""app_loop":{"#) && text.contains(#""receive_ns":35000"#), "\(text)")
    }
}
