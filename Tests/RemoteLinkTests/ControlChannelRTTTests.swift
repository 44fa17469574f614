import Foundation
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem
import Testing

@testable import RemoteLink

/// `measureRTT`: PINGs answered by the peer's receive, the median in milliseconds.
@Suite(.timeLimit(.minutes(1))) struct ControlChannelRTTTests {
    @Test func measuresTheRoundTripAndRefusesAnythingButPong() throws {
        let key = try testKey()
        let listener = try LoopbackListener()
        let server = Background { () throws -> ControlMessage in
            let channel = try ControlChannel.accept(try listener.acceptConnection(), key: key, handshakeTimeoutSeconds: 5)
            defer { channel.close() }
            // A stale PONG first (ignored by the measurement), then only receive: it answers the PINGs.
            try channel.send(.pong(999_999))
            let first = try channel.receive(timeoutSeconds: 10)
            // Something else where the next PONG is due; then wait for the client to hang up.
            try channel.send(.busy)
            _ = try? channel.receive(timeoutSeconds: 10)
            return first
        }
        let client = try ControlChannel.connect(to: listener.address, key: key, timeoutSeconds: 5)
        let rtt = try client.measureRTT(probes: 7)
        #expect(rtt > 0.001 && rtt < 100, "loopback control RTT through TLS: \(rtt) ms")
        try client.send(.bye)
        // The server sent BUSY where a PONG was due.
        #expect(throws: ControlChannelError.protocolError(.unexpectedMessage(.busy, expected: "PONG"))) {
            _ = try client.measureRTT(probes: 1)
        }
        client.close()
        #expect(try server.value() == .bye)
    }

    @Test func aPeerThatNeverAnswersTimesOut() throws {
        let key = try testKey()
        let listener = try LoopbackListener()
        let server = Background { try ControlChannel.accept(try listener.acceptConnection(), key: key, handshakeTimeoutSeconds: 5) }
        let client = try ControlChannel.connect(to: listener.address, key: key, timeoutSeconds: 5)
        let silent = try server.value()  // never receives, so never answers
        defer {
            silent.close()
            client.close()
        }
        let start = MonotonicClock.now()
        #expect(throws: ControlChannelError.timedOut) { _ = try client.measureRTT(probes: 1, timeoutSeconds: 0.3) }
        #expect(secondsSince(start) < 2)
    }
}
