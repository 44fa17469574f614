import CPeerBenchSystem  // sockets' constants, whichever clang module ends up owning them
import Foundation
import PeerBenchPlugin
import PeerBenchSystem

@testable import RemoteLink

#if canImport(Glibc)
    import Glibc
#endif

/// The real `peerbench serve` binary on 127.0.0.1 (real sockets, real TLS, its log on
/// stderr), for tests of serve's admission and session hygiene that need no namespaces.
/// A process of its own: tests elsewhere in the suite that hold Swift's cooperative
/// pool (blocking waits) cannot stall it.
final class LocalServe: Sendable {
    let process: PeerbenchProcess
    let key: PreSharedKey
    let address: SocketAddress
    private let dir: String

    private init(process: PeerbenchProcess, key: PreSharedKey, address: SocketAddress, dir: String) {
        self.process = process
        self.key = key
        self.address = address
        self.dir = dir
    }

    /// Starts serve on a port the kernel just handed out, with a fresh key.
    static func start() async throws -> LocalServe {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pbl-serve-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let key = try testKey()
        let keyFile = dir + "/key.psk"
        let line = "peerbench-psk/1 \(key.identity) \(key.bytes.map { String(format: "%02x", $0) }.joined())\n"
        guard FileManager.default.createFile(atPath: keyFile, contents: Data(line.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw TransportError("cannot write \(keyFile)")
        }
        let probe = try Socket(family: AF_INET, type: Int32(SOCK_STREAM.rawValue))
        try probe.bind(SocketAddress(host: "127.0.0.1", port: 0))
        let port = try probe.localAddress().port
        probe.close()
        let dataPorts = port < 65_000 ? "\(port + 1)-\(port + 5)" : "\(port - 5)-\(port - 1)"
        let process = try PeerbenchProcess(["serve", "--listen", "127.0.0.1:\(port)", "--psk-file", keyFile, "--data-ports", dataPorts], in: nil)
        let serve = LocalServe(process: process, key: key, address: SocketAddress(host: "127.0.0.1", port: port), dir: dir)
        guard await serve.waitForLog("listening on", seconds: 30) else {
            serve.stop()
            throw TransportError("serve did not start: \(process.stderr)")
        }
        return serve
    }

    /// serve's log lines so far.
    var log: [String] { process.stderr.split(separator: "\n").map(String.init) }

    /// Waits until a log line contains `text`; false after `seconds`. Sleeps with
    /// Task.sleep: a test must not block Swift's cooperative pool (two threads here).
    func waitForLog(_ text: String, seconds: Double = 10) async -> Bool {
        let deadline = MonotonicClock.now() + UInt64(seconds * 1e9)
        while MonotonicClock.now() < deadline {
            if process.stderr.contains(text) { return true }
            if !process.process.isRunning { return process.stderr.contains(text) }
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
        return false
    }

    /// Ends serve (SIGKILL: it keeps nothing) and removes its key.
    func stop() {
        process.kill(SIGKILL)
        try? FileManager.default.removeItem(atPath: dir)
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
