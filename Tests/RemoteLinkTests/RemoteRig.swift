import Foundation
import PeerBenchCore
import PeerBenchPlugin

/// Two hosts for the end-to-end tests: namespaces joined by veth (`VethHosts`), a
/// key made by `peerbench psk new`, `peerbench serve` in the server namespace and
/// `peerbench run --link remote` in the client namespace — the real binary both times.
final class RemoteRig: @unchecked Sendable {
    let hosts: VethHosts
    let dir: String
    let keyFile: String
    let port: UInt16
    let dataPorts: ClosedRange<UInt16>
    private(set) var serve: PeerbenchProcess?

    init(port: UInt16 = 47_800, dataPorts: ClosedRange<UInt16> = 47_801...47_810) throws {
        hosts = try VethHosts()
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("pbr-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        keyFile = dir + "/key.psk"
        self.port = port
        self.dataPorts = dataPorts
        do {
            let made = try PeerbenchProcess(["psk", "new", keyFile], in: nil)
            guard made.wait(seconds: 30) == 0 else { throw TransportError("psk new failed: \(made.stderr)") }
        } catch {
            hosts.remove()
            throw error
        }
    }

    var peer: String { "\(hosts.serverAddress):\(port)" }

    /// Starts serve and waits until it listens.
    @discardableResult
    func startServe(_ extra: [String] = []) throws -> PeerbenchProcess {
        let p = try PeerbenchProcess(
            [
                "serve", "--listen", peer, "--psk-file", keyFile,
                "--data-ports", "\(dataPorts.lowerBound)-\(dataPorts.upperBound)",
            ] + extra, in: hosts.server)
        guard p.waitFor("listening on", seconds: 30) else {
            p.kill(SIGKILL)
            throw TransportError("serve did not start: \(p.stderr)")
        }
        serve = p
        return p
    }

    /// `run MATRIX --link remote` in the client namespace; its process (not awaited).
    func startRun(_ matrix: String, out: String, key: String? = nil, _ extra: [String] = []) throws -> PeerbenchProcess {
        try PeerbenchProcess(
            ["run", matrix, "--out", out, "--link", "remote", "--peer", peer, "--psk-file", key ?? keyFile] + extra,
            in: hosts.client)
    }

    /// Writes `matrix` (a JSON text) into the rig's folder; its path.
    func write(_ text: String, _ name: String) throws -> String { try Self.write(text, into: dir, name) }

    func records(_ out: String) throws -> [[String: Any]] { try Self.records(out) }

    /// Writes `text` to `dir/name`; its path (`EmulatedServeRig` writes with it too).
    static func write(_ text: String, into dir: String, _ name: String) throws -> String {
        let path = dir + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The records a run wrote into `out`, in order (none if it wrote no file).
    static func records(_ out: String) throws -> [[String: Any]] {
        let text = (try? String(contentsOfFile: out + "/records.jsonl", encoding: .utf8)) ?? ""
        return try text.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
    }

    func remove() {
        serve?.kill(SIGKILL)
        _ = serve?.wait(seconds: 5)
        hosts.remove()
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// A small matrix: `transports` (JSON array text), one environment at 10 m, one payload.
    static func matrix(
        transports: String, count: Int = 100, size: Int = 128, timeout: Int = 20, probes: Int = 10,
        rttMethod: String = "ping-pong", workloads: String? = nil
    ) -> String {
        """
        {"name": "remote-test", "repetitions": 1, "rttProbes": \(probes), "rttMethod": "\(rttMethod)", "cellTimeoutSeconds": \(timeout), "seed": 7,
         "transports": \(transports),
         "matrix": {"environments": ["free-field"], "distances": [10], \(workloads.map { "\"workloads\": \($0), " } ?? "")"payloads": {"counts": [\(count)], "sizes": [\(size)]}}}
        """
    }
}
