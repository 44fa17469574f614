import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem
import Testing

@testable import QUICTransport

/// `reconnect`'s RESUME (docs/protocol/quic.md, section 4b) is the cell's client's
/// only way back into a session: the server refuses, with application error 0x3 and a
/// reason, a RESUME with another cell's token and one before the cell's HELLO, and
/// serves the cell's own client afterwards as if nothing had happened.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct QUICResumeRefusalTests {
    @Test("RESUME with another cell's token, or before the cell's HELLO, is refused by name; the cell is served after")
    func refusals() async throws {
        let plugin = try makePlugin(["idleTimeoutSeconds": 2, "reconnect": true])
        let cell = CellContext.loopback(payload: Payload(count: 10, size: 1000), rttProbes: 3, seed: 1)
        let server = try await plugin.startServer(cell)
        defer { server.stop() }
        let cases = [
            (CellToken(cell: .loopback(payload: nil, seed: 2)), "RESUME carries another cell's token"),
            (CellToken(cell: cell), "RESUME before the cell's session began with HELLO"),
        ]
        for (token, why) in cases {
            let text = try await BlockingThread.run(name: "resume") { () -> String in
                let client = try QUICClient(
                    config: plugin.config, server: server.address, token: token, deadline: cell.deadline,
                    cancellation: cell.cancellation, serviceClass: cell.wifi.serviceClass)
                do {
                    let (connection, _) = try client.handshake()
                    let control = try client.openControlStream(on: connection)
                    connection.sender(control).append(copying: FrameEncoder.encode(.resume(token)))
                    try client.pump("resume") { false }
                    return "not refused"
                } catch {
                    return "\(error)"
                }
            }
            #expect(text.contains("application error 0x3") && text.contains(why), "\(text)")
        }
        let m = try await withTimeout(20) { try await plugin.runClient(cell, server: server.address) }
        #expect(m.delivery == Delivery(sentMessages: 10, receivedMessages: 10, sentBytes: 10_000, receivedBytes: 10_000))
        #expect(m.reconnects == [], "reconnect on, nothing lost: an empty list")
        try await withTimeout(10) { try await server.finish() }
    }
}
