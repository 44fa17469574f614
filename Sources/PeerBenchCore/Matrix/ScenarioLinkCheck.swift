import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchTestbed

extension Matrix {
    /// Scenarios are played by the link emulator: with `--link none` (loopback) or
    /// `remote` (a real link) nothing could apply them, so a matrix with any scenario
    /// other than `static` is refused before anything runs.
    public func checkScenarios(linkMode: LinkMode, matrixFile: String) throws(InputError) {
        guard linkMode != .emulated, let s = scenarios.first(where: { !$0.isStatic }) else { return }
        let i = scenarios.firstIndex(of: s)!
        throw InputError(
            source: matrixFile, path: JSONPath.root.key("matrix").key("scenarios").index(i).description,
            "scenario \"\(s.name)\" changes the link during the cell, which only the emulated link can do; run it with --link emulated, or leave the scenarios out for --link \(linkMode.rawValue)"
        )
    }
}
