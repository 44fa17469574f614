import Foundation
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Plugins for the end-to-end tests of unattended runs: they misbehave on purpose
/// (hang, trap, segfault), which a real transport must never do. Compiled only into
/// debug builds (the test suite's; Package.swift defines PEERBENCH_TEST_PLUGINS for
/// them), so the release binary that runs measurements does not contain them, and
/// registered only when the environment has `PEERBENCH_TEST_PLUGINS=1`.
enum TestPlugins {
    static var enabled: [any TransportPlugin.Type] {
        #if PEERBENCH_TEST_PLUGINS
            ProcessInfo.processInfo.environment["PEERBENCH_TEST_PLUGINS"] == "1" ? [MisbehavingPlugin.self] : []
        #else
            []
        #endif
    }
}

#if PEERBENCH_TEST_PLUGINS

    /// `"plugin": "misbehaving"`: the client does what `behavior` says after `sleepMs`.
    struct MisbehavingPlugin: TransportPlugin {
        enum Behavior: String, CaseIterable { case ok, `throw`, hang, hangIgnoringCancel, trap, segfault }
        static let descriptor = PluginDescriptor(
            name: "misbehaving", summary: "test only (PEERBENCH_TEST_PLUGINS=1): ok, throws, hangs, traps or segfaults",
            options: [
                OptionDescriptor("behavior", type: "string", default: "ok", help: "ok, throw, hang, hangIgnoringCancel, trap or segfault"),
                OptionDescriptor("sleepMs", type: "integer", default: "0", help: "milliseconds to wait first (cancellable)"),
            ])
        let behavior: Behavior
        let sleepMs: Int

        init(options: PluginOptions) throws {
            behavior = try options.choice("behavior", default: .ok)
            sleepMs = try options.int("sleepMs", default: 0, range: 0...600_000)
        }

        struct Server: TransportServer {
            var address = SocketAddress(host: "127.0.0.1", port: 9)
            func finish() async throws {}
            func stop() {}
        }

        func startServer(_ cell: CellContext) async throws -> any TransportServer { Server() }

        func runClient(_ cell: CellContext, server: SocketAddress) async throws -> TransportMeasurement {
            let (behavior, sleepMs) = (self.behavior, self.sleepMs)
            return try await cell.client.run("misbehaving") {
                let s = try Socket(family: AF_INET, type: Int32(SOCK_DGRAM.rawValue))
                try s.bind(SocketAddress(host: "127.0.0.1", port: 0))
                if behavior != .hangIgnoringCancel { cell.cancellation.register(s) }
                if sleepMs > 0 {
                    // Waits in a real recv with a timeout, so cancellation cuts the sleep short.
                    try s.setReceiveTimeout(nanoseconds: UInt64(sleepMs) * 1_000_000)
                    var buf = [UInt8](repeating: 0, count: 16)
                    _ = try? buf.withUnsafeMutableBytes { try s.receive($0) }
                    if cell.cancellation.isCancelled { throw TransportError("cancelled") }
                }
                switch behavior {
                case .ok:
                    var m = TransportMeasurement()
                    m.connectNanos = 1_000_000
                    m.rttNanos = [1_000_000, 2_000_000, 3_000_000]
                    m.bulkNanos = 1_000_000_000
                    m.delivery = Delivery(sentMessages: 10, receivedMessages: 10, sentBytes: 1_250_000, receivedBytes: 1_250_000)
                    return m
                case .throw:
                    throw TransportError("scripted failure")
                case .trap:
                    fatalError("misbehaving plugin: deliberate trap")
                case .segfault:
                    // A real invalid memory access, as a bug in C code would make.
                    UnsafeMutablePointer<Int32>(bitPattern: 16)!.pointee = 1
                    throw TransportError("unreachable")
                case .hang, .hangIgnoringCancel:
                    var buf = [UInt8](repeating: 0, count: 16)
                    var tv = timeval(tv_sec: 0, tv_usec: 0)  // no timeout: wait for ever
                    setsockopt(s.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
                    while try buf.withUnsafeMutableBytes({ try s.receive($0) }) == nil {}
                    throw TransportError("receive returned")
                }
            }
        }
    }
#endif
