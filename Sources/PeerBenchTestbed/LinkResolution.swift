import PeerBenchPlugin

extension LinkModel {
    /// Resolves any environment of a matrix at a distance: built-in and radio
    /// environments through the model, fixed links directly (distance has no effect there).
    public func resolve(_ environment: EnvironmentSpec, _ distance: DistanceSpec) throws -> ResolvedLink {
        let meters: Double? = if case .meters(let m) = distance { m } else { nil }
        switch environment.kind {
        case .fixed(let fixed):
            var link = fixed.resolved(environment: environment.name, distanceLabel: distance.label)
            link.distanceMeters = meters
            return link
        case .builtIn:
            return try resolve(environment: environment.name, profile: nil, distance: meters, distanceLabel: distance.label)
        case .radio(let profile):
            return try resolve(environment: environment.name, profile: profile, distance: meters, distanceLabel: distance.label)
        }
    }
}

extension LinkModel {
    /// The link of `environment` at `distance` under `scenario`: resolved, then changed
    /// by the scenario (`static` leaves it as it is).
    public func resolve(_ environment: EnvironmentSpec, _ distance: DistanceSpec, scenario: ScenarioSpec) throws -> ResolvedLink {
        let link = try resolve(environment, distance)
        return scenario.isStatic ? link : try apply(scenario, environment: environment, to: link)
    }
}
