#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import PeerBenchPlugin
@testable import RemoteLink

/// A `ServeResponder` in this process on 127.0.0.1 (real sockets, real TLS), its log
/// lines collected: for tests of serve's admission and session hygiene that need no
/// namespaces and no binary.
final class LocalServe: Sendable {
    let responder: ServeResponder
    let key: PreSharedKey
    private final class Lines: Sendable { let all = Mutex<[String]>([]) }
    private let lines = Lines()

    init(limits: ServeLimits = ServeLimits(), registry: PluginRegistry = PluginRegistry()) throws {
        key = try testKey()
        let collected = lines
        let config = ServeConfiguration(listen: SocketAddress(host: "127.0.0.1", port: 0), key: key, limits: limits,
                                        registry: registry, software: "test")
        responder = try ServeResponder(config, log: ServeLog { line in collected.all.withLock { $0.append(line) } })
        let r = responder
        Task { await r.run() }
    }

    var address: SocketAddress { responder.address }
    var log: [String] { lines.all.withLock { $0 } }

    /// Waits until a log line contains `text`; false after `seconds`. Sleeps with
    /// Task.sleep: a test must not block Swift's cooperative pool (two threads here).
    func waitForLog(_ text: String, seconds: Double = 10) async -> Bool {
        let deadline = MonotonicClock.now() + UInt64(seconds * 1e9)
        while MonotonicClock.now() < deadline {
            if log.contains(where: { $0.contains(text) }) { return true }
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
        return false
    }

    /// Stops accepting; the accept thread ends within 200 ms and closes the port.
    /// Does not wait for it (waiting would hold a thread of the cooperative pool).
    func stop() {
        responder.stop()
    }

    /// A client that authenticates and exchanges HELLO; the caller closes it.
    func helloClient(timeoutSeconds: Double = 10) throws -> ControlChannel {
        let channel = try ControlChannel.connect(to: address, key: key, timeoutSeconds: timeoutSeconds)
        try channel.send(.hello(.init(protocolVersions: RemoteLink.controlProtocolVersions, softwareVersion: "test", plugins: [])))
        guard case .hello = try channel.receive(timeoutSeconds: timeoutSeconds) else {
            channel.close()
            throw TransportError("serve did not answer HELLO")
        }
        return channel
    }
}
