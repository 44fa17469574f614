import PeerBenchJSON
import PeerBenchPlugin

/// `run --link remote`: what differs in the plan when the peer is a real host.
enum RemoteRun {
    /// Between two real hosts the distance is what the user measured: `"max"` cannot
    /// be resolved by a model, so it is refused, naming each place it is written.
    static func checkDistances(_ matrix: Matrix, matrixPath: String) throws(InputError) {
        let problems = matrix.distances.enumerated().compactMap { i, d -> InputProblem? in
            guard case .max = d else { return nil }
            return InputProblem(
                source: matrixPath, path: JSONPath.root.key("matrix").key("distances").index(i).description,
                "\"max\" cannot be resolved over --link remote (no model decides where the real link ends); write the distance in metres at which you placed the peer"
            )
        }
        if !problems.isEmpty { throw InputError(problems) }
    }

    /// The link as the matrix writes it: environment label and metres. Nothing is
    /// emulated between two real hosts, so no model value may reach the record.
    static func asWritten(_ link: ResolvedLink) -> ResolvedLink {
        ResolvedLink(environment: link.environment, distanceMeters: link.distanceMeters, distanceLabel: link.distanceLabel)
    }
}
