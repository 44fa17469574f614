import Foundation
import LinkEmulation
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem

/// `peerbench serve` in an emulated link's server namespace and `run --link remote` in
/// its client namespace: the EmulatedTestbed's pair (TUN devices and the userspace
/// emulator between them), a key made by `peerbench psk new`, the real binary both
/// times. `RemoteRig` is the same over veth, with nothing between the hosts.
final class EmulatedServeRig: @unchecked Sendable {
    let testbed: EmulatedTestbed
    let client: NetworkNamespace
    let dir: String
    let key: String
    /// serve's control address, `server address:port`.
    let peer: String
    let serve: PeerbenchProcess

    /// The link configured with `parameters` (seed 1); serve listening on `port` of the
    /// server's address, its data ports the ten above it.
    init(_ parameters: EmulatorParameters, port: UInt16) throws {
        let testbed = try EmulatedTestbed(initialMTU: 1_500)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pbr-emu-\(UUID().uuidString)").path
        do {
            let endpoints = try testbed.configure(parameters, seed: 1)
            guard let client = endpoints.client.namespace, let server = endpoints.server.namespace else {
                throw TransportError("the emulated link has no namespaces")
            }
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            let key = dir + "/key.psk"
            let made = try PeerbenchProcess(["psk", "new", key], in: nil)
            guard made.wait(seconds: 30) == 0 else { throw TransportError("psk new failed: \(made.stderr)") }
            let peer = "\(endpoints.server.address):\(port)"
            let serve = try PeerbenchProcess(["serve", "--listen", peer, "--psk-file", key, "--data-ports", "\(port + 1)-\(port + 10)"], in: server)
            guard serve.waitFor("listening on", seconds: 30) else {
                serve.kill(SIGKILL)
                throw TransportError("serve did not start: \(serve.stderr)")
            }
            (self.testbed, self.client, self.dir, self.key, self.peer, self.serve) = (testbed, client, dir, key, peer, serve)
        } catch {
            testbed.shutdownNow()
            try? FileManager.default.removeItem(atPath: dir)
            throw error
        }
    }

    /// Writes `text` (a matrix) into the rig's folder; its path.
    func write(_ text: String, _ name: String = "m.json") throws -> String { try RemoteRig.write(text, into: dir, name) }

    /// `run MATRIX --link remote` in the client namespace, records into the rig's `out`;
    /// its process (not awaited).
    func startRun(_ matrix: String) throws -> PeerbenchProcess {
        try PeerbenchProcess(["run", matrix, "--out", dir + "/out", "--link", "remote", "--peer", peer, "--psk-file", key], in: client)
    }

    /// The records the run wrote, in order.
    func records() throws -> [[String: Any]] { try RemoteRig.records(dir + "/out") }

    func remove() {
        serve.kill(SIGKILL)
        serve.wait(seconds: 5)
        testbed.shutdownNow()
        try? FileManager.default.removeItem(atPath: dir)
    }
}
