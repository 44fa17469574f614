import LinkEmulation
import PeerBenchAnalysis
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchTestbed

/// The one place that knows the concrete parts: which plugins exist, which link
/// model resolves environments, which testbeds join the endpoints (`WiredTestbeds`),
/// which judge settles auto repetitions.
enum Wiring {
    static var registry: PluginRegistry {
        PluginRegistry(registeredPlugins + TestPlugins.enabled)
    }

    static var linkModel: any LinkModel { RadioModel() }

    /// The stopping rule of `--repetitions auto`: compare's intervals, from the analysis.
    static let repetitionJudge: RepetitionJudgeFactory = { rule, cells, recorded in
        AutoRepetitionJudge(rule: rule, cells: cells, records: recorded)
    }
}
