import PeerBenchCore
import PeerBenchPlugin

/// The measurement floor `compare` and `report` apply (docs/COMPARE.md, "The
/// measurement floor"): from the runs' manifests (`measurement_floor`), what the harness
/// itself cannot resolve, per transport label. A difference in a time metric that is
/// not shown to exceed it is never called a difference.
///
/// Runs merged from several machines may have measured different floors: each figure
/// is the largest any run measured, and `notes` says so.
public struct ComparisonFloor: Sendable, Equatable, Codable {
    /// One label's loopback RTT floor (the largest over the runs), milliseconds.
    public struct Transport: Sendable, Equatable, Codable {
        public var label: String
        public var p50Ms: Double
        public var p99Ms: Double

        /// A label's floor (the tests build documents from it).
        public init(label: String, p50Ms: Double, p99Ms: Double) {
            self.label = label
            self.p50Ms = p50Ms
            self.p99Ms = p99Ms
        }

        enum CodingKeys: String, CodingKey { case label, p50Ms = "p50_ms", p99Ms = "p99_ms" }
    }

    /// Labels with a measured loopback RTT, in order of first appearance.
    public var transports: [Transport]
    /// How late the emulator released packets, milliseconds; nil when no run was emulated.
    public var emulatorReleaseP50Ms: Double?
    public var emulatorReleaseP99Ms: Double?
    /// The clock's successive-read p99 (what two timestamps can tell apart), milliseconds.
    public var clockMs: Double
    /// Manifests the floor comes from.
    public var runs: Int
    /// Where runs disagree (the larger figure is used) or some have no floor. Not
    /// warnings: two runs on one machine rarely measure the same floor to the microsecond.
    public var notes: [String]

    public init(
        transports: [Transport], emulatorReleaseP50Ms: Double?, emulatorReleaseP99Ms: Double?, clockMs: Double,
        runs: Int = 1, notes: [String] = []
    ) {
        self.transports = transports
        self.emulatorReleaseP50Ms = emulatorReleaseP50Ms
        self.emulatorReleaseP99Ms = emulatorReleaseP99Ms
        self.clockMs = clockMs
        self.runs = runs
        self.notes = notes
    }

    enum CodingKeys: String, CodingKey {
        case transports, emulatorReleaseP50Ms = "emulator_release_p50_ms", emulatorReleaseP99Ms = "emulator_release_p99_ms"
        case clockMs = "clock_ms", runs, notes
    }

    /// The floor of the runs whose manifests carry one (`source` names each run); nil
    /// when none does (runs older than the floor, or no manifest).
    public init?(_ floors: [(source: String, floor: MeasurementFloor)]) {
        guard !floors.isEmpty else { return nil }
        var order: [String] = []
        var p50: [String: [Double]] = [:], p99: [String: [Double]] = [:]
        var releases: [(p50: Double, p99: Double)] = []
        var clock = 0.0
        for (_, f) in floors {
            clock = max(clock, Double(f.clock.readDeltaP99Nanos) / 1e6)
            if let r = f.emulatorReleaseError { releases.append((Double(r.p50Micros) / 1e3, Double(r.p99Micros) / 1e3)) }
            for t in f.loopbackRTT {
                guard let a = t.p50Ms, let b = t.p99Ms else { continue }
                if p50[t.label] == nil { order.append(t.label) }
                p50[t.label, default: []].append(a)
                p99[t.label, default: []].append(b)
            }
        }
        var notes: [String] = []
        func spread(_ xs: [Double]) -> Bool { (xs.max() ?? 0) > (xs.min() ?? 0) }
        let differing = order.filter { spread(p50[$0]!) || spread(p99[$0]!) }
        if floors.count > 1, !differing.isEmpty || spread(releases.map(\.p50)) || spread(releases.map(\.p99)) {
            notes.append(
                "the \(floors.count) runs measured different floors (" + floors.map(\.source).joined(separator: ", ")
                    + "); the larger figure of each is used")
        }
        if !releases.isEmpty, releases.count < floors.count {
            notes.append("only \(releases.count) of \(floors.count) runs measured the emulator's release error; it applies to all")
        }
        self.init(
            transports: order.map { Transport(label: $0, p50Ms: p50[$0]!.max()!, p99Ms: p99[$0]!.max()!) },
            emulatorReleaseP50Ms: releases.map(\.p50).max(), emulatorReleaseP99Ms: releases.map(\.p99).max(),
            clockMs: clock, runs: floors.count, notes: notes)
    }

    /// Which quantile of the floor a metric's figure is limited by; nil for metrics
    /// that are not times (throughput, loss, uwb), which have no floor.
    public enum Quantile: Sendable { case p50, p99 }

    public static func quantile(metric: String) -> Quantile? {
        switch metric {
        case ComparisonMetric.rttP99.rawValue: .p99
        case ComparisonMetric.rttP50.rawValue, ComparisonMetric.jitter.rawValue, ComparisonMetric.connectMs.rawValue,
            ComparisonDocument.withinRunMetric:
            .p50
        default: nil
        }
    }

    /// The floor of a difference between labels `a` and `b` (the same label twice for a
    /// baseline) on `metric`, milliseconds: the larger of the two loopback RTT floors at
    /// the metric's quantile, plus the emulator's release error at that quantile, plus
    /// the clock. Nil for metrics without a floor and for labels with no measured floor.
    public func floorMs(metric: String, a: String, b: String) -> Double? {
        guard let q = Self.quantile(metric: metric) else { return nil }
        let loop = transports.filter { $0.label == a || $0.label == b }.map { q == .p50 ? $0.p50Ms : $0.p99Ms }.max()
        guard let loop else { return nil }
        let release = (q == .p50 ? emulatorReleaseP50Ms : emulatorReleaseP99Ms) ?? 0
        return loop + release + clockMs
    }

    /// The figures alone (not where they came from), to tell whether two runs agree.
    var figures: [Double?] {
        transports.flatMap { [$0.p50Ms, $0.p99Ms] } + [emulatorReleaseP50Ms, emulatorReleaseP99Ms, clockMs]
    }

    /// Two runs' floors together (a baseline): each figure the larger of the two.
    static func merged(_ a: ComparisonFloor?, _ b: ComparisonFloor?) -> ComparisonFloor? {
        guard let a, let b else { return a ?? b }
        var transports = a.transports
        for t in b.transports {
            if let i = transports.firstIndex(where: { $0.label == t.label }) {
                transports[i].p50Ms = max(transports[i].p50Ms, t.p50Ms)
                transports[i].p99Ms = max(transports[i].p99Ms, t.p99Ms)
            } else {
                transports.append(t)
            }
        }
        func larger(_ x: Double?, _ y: Double?) -> Double? { x.map { v in max(v, y ?? v) } ?? y }
        return ComparisonFloor(
            transports: transports, emulatorReleaseP50Ms: larger(a.emulatorReleaseP50Ms, b.emulatorReleaseP50Ms),
            emulatorReleaseP99Ms: larger(a.emulatorReleaseP99Ms, b.emulatorReleaseP99Ms),
            clockMs: max(a.clockMs, b.clockMs), runs: a.runs + b.runs, notes: a.notes + b.notes)
    }

    /// The reason a pair the test alone calls a difference is `no_difference`.
    public static let belowFloor = "below_floor"

    /// Whether a shift (a - b, with its 95 % interval when there is one) is shown to
    /// exceed `floor`: the whole interval lies beyond it on one side; without an interval
    /// (samples too small), the shift itself does.
    public static func exceeds(shift: Double?, low: Double?, high: Double?, floor: Double) -> Bool {
        if let low, let high { return low > floor || high < -floor }
        guard let shift else { return false }
        return abs(shift) > floor
    }
}
