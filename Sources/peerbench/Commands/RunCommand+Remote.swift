import PeerBenchCore
import PeerBenchPlugin
import RemoteLink

/// `run --link remote`: what differs from an emulated run before the first cell.
enum RemoteRun {
    /// Between two real hosts the distance is what the user measured: `"max"` cannot
    /// be resolved by a model, so it is refused, naming each place it is written.
    static func checkDistances(_ matrix: Matrix, matrixPath: String) throws(InputError) {
        let problems = matrix.distances.enumerated().compactMap { i, d -> InputProblem? in
            guard case .max = d else { return nil }
            return InputProblem(source: matrixPath, path: JSONPath.root.key("matrix").key("distances").index(i).description,
                                "\"max\" cannot be resolved over --link remote (no model decides where the real link ends); write the distance in metres at which you placed the peer")
        }
        if !problems.isEmpty { throw InputError(problems) }
    }

    /// The link as the matrix writes it: environment label and metres. Nothing is
    /// emulated between two real hosts, so no model value may reach the record.
    static func asWritten(_ link: ResolvedLink) -> ResolvedLink {
        ResolvedLink(environment: link.environment, distanceMeters: link.distanceMeters, distanceLabel: link.distanceLabel)
    }

    /// Connects to the peer's `serve` and agrees on versions and plugins. Errors are
    /// the user's to act on: a wrong key, an unreachable peer, a plugin mismatch.
    static func connect(peer: String, pskFile: String, registry: PluginRegistry, plan: RunPlan, quiet: Bool) async throws -> RemoteTestbed {
        // `--peer auto[:NAME]`: the serve instance DNS-SD finds (docs/FIELD-GUIDE.md).
        let target = try Discovery.resolvePeerOption(peer)
        if target != peer && !quiet { Terminal.err("peerbench: found \(peer) by DNS-SD: \(target)") }
        let address = try RemotePeer.resolve(target, option: "--peer")
        let key = try RemoteTestbed.loadKey(pskFile)
        let needed = Array(Set(plan.matrix.transports.map(\.plugin))).sorted()
        let testbed = try await RemoteTestbed.connect(to: address, key: key, plugins: registry.names, needed: needed,
                                                      software: "peerbench \(Manifest.peerbenchVersion)")
        if !quiet { Terminal.err("peerbench: connected to \(testbed.peerDescription)") }
        return testbed
    }
}
