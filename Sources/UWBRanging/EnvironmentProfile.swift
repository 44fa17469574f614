/// How the surroundings affect UWB ranging: how often the line of sight is blocked
/// (bodies, pillars, cars, trunks), for how long, and how often a measurement is
/// lost. All figures are assumptions [A] chosen to match the qualitative reports in
/// docs/UWB.md; the environment names are the link model's built-in ones.
public struct EnvironmentProfile: Sendable, Hashable {
    public var name: String
    /// Long-run fraction of time without line of sight.
    public var nlosProbability: Double
    /// Mean time a blockage lasts, seconds (the LoS/NLoS state is a two-state Markov chain).
    var meanNLoSSeconds: Double
    /// Probability that a ranging round gives no distance, in line of sight.
    var losDropout: Double
    /// The same without line of sight.
    public var nlosDropout: Double

    public init(name: String, nlosProbability: Double, meanNLoSSeconds: Double, losDropout: Double, nlosDropout: Double) {
        self.name = name
        self.nlosProbability = nlosProbability
        self.meanNLoSSeconds = meanNLoSSeconds
        self.losDropout = losDropout
        self.nlosDropout = nlosDropout
    }

    /// Open field: the only blockage is the people holding the devices [A].
    public static let freeField = EnvironmentProfile(
        name: "free-field", nlosProbability: 0.015, meanNLoSSeconds: 0.5,
        losDropout: 0.005, nlosDropout: 0.10)
    /// Streets: passers-by and parked cars cross the path [A].
    public static let innerCity = EnvironmentProfile(
        name: "inner-city", nlosProbability: 0.20, meanNLoSSeconds: 1.0,
        losDropout: 0.01, nlosDropout: 0.20)
    /// Underground station: crowds, pillars and metal, strong multipath [A].
    public static let underground = EnvironmentProfile(
        name: "underground", nlosProbability: 0.30, meanNLoSSeconds: 1.5,
        losDropout: 0.02, nlosDropout: 0.25)
    /// Forest: trunks and foliage absorb and block the path for long stretches [A].
    public static let forest = EnvironmentProfile(
        name: "forest", nlosProbability: 0.40, meanNLoSSeconds: 2.0,
        losDropout: 0.01, nlosDropout: 0.30)

    public static let builtIn: [EnvironmentProfile] = [.underground, .innerCity, .freeField, .forest]

    /// The built-in profile of that name; any other name (a custom environment from
    /// matrix.json) gets the free-field figures under its own name, because the
    /// link model's custom profiles say nothing about line of sight.
    public static func named(_ name: String) -> EnvironmentProfile {
        if let p = builtIn.first(where: { $0.name == name }) { return p }
        var p = freeField
        p.name = name
        return p
    }
}
