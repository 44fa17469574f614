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
}
