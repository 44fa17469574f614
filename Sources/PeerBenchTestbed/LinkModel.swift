import PeerBenchJSON
import PeerBenchPlugin

/// Turns an environment and a distance into link behaviour. The radio model lives in
/// the link emulation module; the core only sees this protocol, and tests can supply
/// a simple one.
public protocol LinkModel: Sendable {
    /// Built-in environment names, in display order.
    var builtInEnvironments: [String] { get }

    /// Validates an inline radio profile object from matrix.json (any environment
    /// object with a `"radio"` key) and returns its problems.
    func validateProfile(_ profile: JSONValue, path: JSONPath) -> [InputProblem]

    /// Resolves a built-in environment or inline radio profile at a distance.
    /// `distance` nil means "max": the model picks its largest connected distance.
    func resolve(environment: String, profile: JSONValue?, distance: Double?, distanceLabel: String) throws -> ResolvedLink

    /// Parameters of the model and their provenance, for `peerbench list`.
    func describe() -> [String]

    /// `link` (resolved for `environment`) changed over time by `scenario` (never
    /// `static`): sets `link.scenario` and whatever the testbed needs to play it.
    /// Throws `InputError` for a scenario this model cannot apply to this environment.
    func apply(_ scenario: ScenarioSpec, environment: EnvironmentSpec, to link: ResolvedLink) throws -> ResolvedLink
}

extension LinkModel {
    /// Models that emulate no scenarios refuse every one.
    public func apply(_ scenario: ScenarioSpec, environment: EnvironmentSpec, to link: ResolvedLink) throws -> ResolvedLink {
        throw InputError("scenario \"\(scenario.name)\": this link model does not emulate scenarios")
    }
}
