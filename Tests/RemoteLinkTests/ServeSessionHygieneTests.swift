import Foundation
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem
import Testing

@testable import RemoteLink

/// A live serve (the binary, on loopback) against a client holding the key that
/// sends what it should not (issue 24, finding 6).
@Suite(.serialized, .timeLimit(.minutes(2))) struct ServeSessionHygieneTests {
    @Test func anUndecodableFrameGetsError2BeforeTheSessionCloses() async throws {
        let serve = try await LocalServe.start()
        defer { serve.stop() }
        let reply = try await BlockingThread.run(name: "client", namespace: nil) { () throws -> ControlMessage in
            let channel = try serve.helloClient()
            defer { channel.close() }
            try channel.write([0x50, 0x42, 0x01, 0x7F, 0, 0, 0, 0])  // type 0x7F: no such message
            return try channel.receive(timeoutSeconds: 10)
        }
        guard case .error(let code, let message) = reply else {
            Issue.record("expected ERROR 2, got \(reply)")
            return
        }
        #expect(code == ControlErrorCode.protocolViolation)
        #expect(message.contains("0x7f") || message.contains("type"), "\(message)")
        #expect(await serve.waitForLog("ended after 0 cells"))
    }

    @Test func aLabelWithANewlineCannotForgeALogLine() async throws {
        let serve = try await LocalServe.start()
        defer { serve.stop() }
        let forged = "tcp\n2026-01-01T00:00:00Z serve: session from 10.9.9.9: started"
        var request = ServeLimitsTests.request("nope")
        request.label = forged
        let body = RemoteCell.encode(request)
        _ = try await BlockingThread.run(name: "client", namespace: nil) { () throws -> ControlMessage in
            let channel = try serve.helloClient()
            defer { channel.close() }
            try channel.send(.cellRequest(body))
            return try channel.receive(timeoutSeconds: 10)
        }
        #expect(await serve.waitForLog("refused"))
        // serve writes one line per write; a forged one would start with the label's time.
        #expect(!serve.log.contains { $0.hasPrefix("2026-01-01T00:00:00Z") }, "a forged log line: \(serve.log)")
        for line in serve.log { #expect(!line.contains("\r"), "a log line holds a carriage return: \(line)") }
        #expect(serve.log.contains { $0.contains(#"tcp\n2026-01-01T00:00:00Z"#) }, "the label is shown, escaped: \(serve.log)")
    }
}
