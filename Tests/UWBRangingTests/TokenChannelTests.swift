import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem
import Testing

@testable import UWBRanging

/// Both channels over real loopback TCP, server on its own thread.
@Suite(.timeLimit(.minutes(3))) struct TokenChannelTests {
    /// Runs one exchange of raw bytes; returns (client's view, server's view).
    func swap(_ channel: any TokenChannel, client: [UInt8], server: [UInt8]) async throws -> (TokenExchange, TokenExchange) {
        let listener = try TokenChannelListener(host: "127.0.0.1")
        let deadline = MonotonicClock.now() + 10_000_000_000
        async let served = BlockingThread.run(name: "gatt-server") {
            guard let c = try listener.accept(deadline: deadline) else { throw TokenChannelError("no client") }
            return try channel.serve(server, over: c, deadline: deadline)
        }
        let mine = try await BlockingThread.run(name: "gatt-client") {
            let start = MonotonicClock.now()
            let c = try connectTokenChannel(to: listener.address)
            defer { c.close() }
            return try channel.exchange(client, over: c, start: start, deadline: deadline)
        }
        return (mine, try await served)
    }

    @Test func messageChannelSwapsTokensInOneMessageEachWay() async throws {
        let a = DiscoveryTokenTests.token(seed: 1).serialized(), b = DiscoveryTokenTests.token(seed: 2).serialized()
        let (c, s) = try await swap(MessageTokenChannel(), client: a, server: b)
        #expect(c.peerTokenBytes == b)
        #expect(s.peerTokenBytes == a)
        #expect(c.writeOperations == 1 && c.readOperations == 1)
        #expect(try c.peerToken() == DiscoveryTokenTests.token(seed: 2))
    }

    @Test func gattTakesCeilOfSizeOver182OperationsEachWay() async throws {
        let a = DiscoveryTokenTests.token(seed: 1).serialized(), b = DiscoveryTokenTests.token(seed: 2).serialized()
        let interval = 10.0
        let (c, s) = try await swap(GATTTokenChannel(connectionIntervalMs: interval), client: a, server: b)
        #expect(c.peerTokenBytes == b)
        #expect(s.peerTokenBytes == a)
        #expect(GATTTokenChannel.operations(forTokenBytes: 264) == 2)
        #expect(c.writeOperations == 2, "264 bytes = 182 + 82: two prepare writes")
        #expect(c.readOperations == 2, "read + one read blob")
        #expect(s.readOperations == 2 && s.writeOperations == 2)
        // MTU exchange + 2 prepare writes + execute + read + read blob, one connection interval each.
        #expect(c.totalOperations == 6)
        #expect(Double(c.elapsedNanos) / 1e6 >= 6 * interval - 1, "exchange \(Double(c.elapsedNanos) / 1e6) ms")
    }

    @Test(arguments: [(1, 1), (100, 1), (182, 1), (183, 2), (400, 3), (512, 3)])
    func gattOperationCountsForOtherSizes(size: Int, expected: Int) async throws {
        let a = [UInt8](repeating: 0xA5, count: size), b = [UInt8](repeating: 0x5A, count: max(1, size - 1))
        let (c, _) = try await swap(GATTTokenChannel(connectionIntervalMs: 0), client: a, server: b)
        #expect(c.writeOperations == expected)
        #expect(c.writeOperations == GATTTokenChannel.operations(forTokenBytes: size))
        #expect(c.peerTokenBytes == b)
    }

    @Test func aMalformedTokenCrossesIntactAndIsRejectedByTheReceiver() async throws {
        let foreign = Array("this is not a discovery token, it is a bplist".utf8) + [UInt8](repeating: 7, count: 200)
        for channel in [MessageTokenChannel() as any TokenChannel, GATTTokenChannel(connectionIntervalMs: 0)] {
            let (_, s) = try await swap(channel, client: foreign, server: DiscoveryTokenTests.token().serialized())
            #expect(s.peerTokenBytes == foreign)
            #expect(throws: NIError.self) { try s.peerToken() }
            do { _ = try s.peerToken() } catch { #expect(error.code == .invalidConfiguration) }
        }
    }

    @Test func gattRejectsATokenOverTheAttributeLimit() async throws {
        await #expect(throws: TokenChannelError.self) {
            _ = try await swap(GATTTokenChannel(connectionIntervalMs: 0), client: [UInt8](repeating: 1, count: 513), server: [1])
        }
    }
}
