import Foundation
import Glibc
import Logging
import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSockets
import PeerBenchSystem
import PeerBenchTestbed
import Synchronization
import Testing

/// Burns `seconds` of this thread's own CPU time (not wall time: a loaded machine only
/// makes it take longer), so the figures below do not depend on the machine's load.
private func burn(_ seconds: Double) {
    func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
    let end = now() + UInt64(seconds * 1e9)
    var x: UInt64 = 1
    while now() < end { for _ in 0..<1_000 { x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407 } }
    withExtendedLifetime(x) {}
}

/// A plugin that burns known CPU on each side: the server 0.3 s on its session thread;
/// the client 0.1 s on its own thread and 0.2 s on a helper thread it starts, while a
/// third thread only sleeps 0.3 s (wall time, no CPU). The helper says it is done
/// before its thread ends, as the plugins' helpers do, and then lingers 0.1 s: its CPU
/// is added to the account only when the thread ends, so a record read at once would
/// miss it (a fresh clone's run did, on a busy machine: client 0.100 s).
private struct BurningPlugin: TransportPlugin {
    static let descriptor = PluginDescriptor(name: "burning", summary: "test plugin", options: [])
    init(options: PluginOptions) throws {}

    func startServer(_ cell: CellContext) async throws -> any TransportServer {
        let stopper = CellCancellation()
        let task = Task { try await cell.server.run("burning-server") { burn(0.3) } }
        return SessionServer(address: SocketAddress(host: "127.0.0.1", port: 9), stopper: stopper, task: task)
    }

    func runClient(_ cell: CellContext, server: SocketAddress) async throws -> TransportMeasurement {
        try await cell.client.run("burning-client") {
            let helperDone = DispatchSemaphore(value: 0)
            let sleeperDone = DispatchSemaphore(value: 0)
            CPUAccount.startThread("burning-helper") {
                burn(0.2)
                helperDone.signal()
                usleep(100_000)
            }
            CPUAccount.startThread("sleeping-helper") {
                usleep(300_000)
                sleeperDone.signal()
            }
            burn(0.1)
            helperDone.wait()
            sleeperDone.wait()
        }
        return TransportMeasurement()
    }
}

@Suite("cpu_seconds: each side's threads, on their own CPU clocks")
struct CPUAccountTests {
    @Test("a cell's record charges each side exactly the CPU its threads burned, helpers included, sleep excluded")
    func sidesAreChargedWhatTheyBurned() async throws {
        let registry = PluginRegistry([BurningPlugin.self])
        let transport = TransportSpec(
            plugin: "burning", label: "burning", options: nil, effectiveOptions: .object(JSONObject()), usesPayload: false, index: 0)
        let seed = CellContextSeed(cellID: "c", repetition: 1, seed: 1, payload: nil, rttProbes: 0)
        let endpoint = Endpoint(address: "127.0.0.1")
        let outcome = await PluginSession(registry: registry, transport: transport, cell: seed, timeoutSeconds: 60, logger: Logger(label: "test"))
            .run(client: endpoint, server: endpoint, link: ResolvedLink(environment: "loopback", distanceMeters: nil, distanceLabel: "0"))
        guard case .measured(let m) = outcome else {
            Issue.record("cell did not measure: \(outcome)")
            return
        }
        let cpu = try #require(m.cpuSeconds)
        let client = try #require(cpu.client), server = try #require(cpu.server)
        // Each thread is charged from its start to its end: the burn plus a thread's
        // start-up (well under 10 ms); the sleeper adds nothing measurable.
        #expect(client >= 0.3 && client < 0.35, "client \(client) s, burned 0.1 + 0.2 s")
        #expect(server >= 0.3 && server < 0.35, "server \(server) s, burned 0.3 s")
    }

    @Test("work outside an account is not charged, and an account's figure only grows")
    func onlyChargedWork() async throws {
        let account = CPUAccount()
        try await BlockingThread.run(name: "uncharged") { burn(0.05) }
        #expect(account.nanoseconds == 0)
        try await CPUAccount.$current.withValue(account) {
            try await BlockingThread.run(name: "charged") { burn(0.05) }
        }
        let first = account.seconds
        #expect(first >= 0.05 && first < 0.08, "\(first)")
        try await CPUAccount.$current.withValue(account) {
            try await BlockingThread.run(name: "charged again") { burn(0.05) }
        }
        #expect(account.seconds >= first + 0.05)
    }
}
