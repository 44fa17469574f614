#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PeerBenchCore
import Testing
@testable import LinkEmulation

/// Real namespaces, real TUN devices, real kernel stacks. Serialized: the tests share
/// two cores and measure time.
@Suite(.serialized)
struct EmulatedLinkTests {
    @Test("10 ms one-way delay gives a 20 +- 1 ms UDP round trip")
    func delay() async throws {
        let testbed = try EmulatedTestbed()
        defer { testbed.shutdownNow() }
        let (client, server) = try testbed.configure(EmulatorParameters(delayNanos: 10_000_000, mtu: 1_500), seed: 1)
        let ready = Flag()
        async let echoed = Traffic.udpEcho(server, port: 7001, ready: ready)
        try ready.wait()
        let pings = try await Traffic.udpPings(from: client, to: server, port: 7001, count: 100, gapNanos: 2_000_000)
        _ = try await echoed
        #expect(pings.count == 100)
        let p50 = pings.map(\.1).quantile(0.5).milliseconds
        #expect(abs(p50 - 20) <= 1, "RTT p50 \(p50) ms")
        let e = try #require(testbed.schedulingError())
        print("sched error p50 \(e.percentileMicros(0.5) ?? -1) us p99 \(e.percentileMicros(0.99) ?? -1) us n=\(e.count); rtts", pings.map(\.1).map { $0 / 1000 }.prefix(20))
        let c = try #require(testbed.counters())
        #expect(c.packetsUp >= 100 && c.packetsDown >= 100)
    }
}
