import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSockets
import Testing

/// The `reconnect` option as matrix.json gives it, and the backoff it makes.
@Suite struct ReconnectPolicyTests {
    func read(_ value: JSONValue?, userTimeoutMs: Int? = 1_500, probes: Bool = false) throws -> ReconnectPolicy? {
        var o = JSONObject()
        if let value { o["reconnect"] = value }
        let options = try PluginOptions(.object(o), path: JSONPath.root.key("transports").index(0).key("options"))
        let policy = try ReconnectPolicy.readForStream(
            options, userTimeout: userTimeoutMs.map { TCPUserTimeout(milliseconds: $0) },
            withLoadedRttProbes: probes)
        try options.finish()
        return policy
    }

    @Test("absent and false are off; true is 100 ms doubling to 2 s; an object sets both")
    func parsing() throws {
        #expect(try read(nil) == nil)
        #expect(try read(.bool(false)) == nil)
        #expect(try read(.bool(true)) == ReconnectPolicy(backoffMs: 100, maxBackoffMs: 2_000))
        #expect(try read(["backoffMs": 50, "maxBackoffMs": 400]) == ReconnectPolicy(backoffMs: 50, maxBackoffMs: 400))
        #expect(try read(["backoffMs": 3_000]) == ReconnectPolicy(backoffMs: 3_000, maxBackoffMs: 3_000))
        #expect(try read([:]) == .default)
    }

    @Test("bad values name their JSON path")
    func badValues() {
        let base = "$.transports[0].options.reconnect"
        #expect { _ = try read(.number(1)) } throws: { "\($0)".contains(base + ": expected true, false or an object") }
        #expect { _ = try read(.string("yes")) } throws: { "\($0)".contains(base + ": expected true, false or an object") }
        #expect { _ = try read(["backoffMs": 0]) } throws: { "\($0)".contains(base + ".backoffMs: 0 is out of range") }
        #expect { _ = try read(["backoffMs": 500, "maxBackoffMs": 100]) } throws: {
            "\($0)".contains(base + ".maxBackoffMs: 100 is below backoffMs (500)")
        }
        #expect { _ = try read(["backofMs": 5]) } throws: { "\($0)".contains(base + ".backofMs: unknown option") }
    }

    @Test("without userTimeoutMs, or with loaded probes, reconnect is refused saying why")
    func refusals() {
        #expect { _ = try read(.bool(true), userTimeoutMs: nil) } throws: {
            "\($0)".contains("$.transports[0].options.reconnect: reconnect needs userTimeoutMs") && "\($0)".contains("never noticed lost")
        }
        #expect { _ = try read(.bool(true), probes: true) } throws: { "\($0)".contains("cannot be combined with loadedRttProbes") }
        // Off needs nothing.
        #expect(throws: Never.self) { _ = try read(.bool(false), userTimeoutMs: nil) }
    }

    @Test("the backoff doubles from backoffMs and stays at the cap")
    func backoff() {
        let ms = (0..<8).map { ReconnectPolicy.default.delayNanos(attempt: $0) / 1_000_000 }
        #expect(ms == [100, 200, 400, 800, 1_600, 2_000, 2_000, 2_000])
        let odd = ReconnectPolicy(backoffMs: 300, maxBackoffMs: 1_000)
        #expect((0..<4).map { odd.delayNanos(attempt: $0) / 1_000_000 } == [300, 600, 1_000, 1_000])
        #expect(ReconnectPolicy.default.delayNanos(attempt: Int.max) == 2_000_000_000)
    }
}
