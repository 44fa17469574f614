public import PeerBenchJSON
public import PeerBenchPlugin
import PeerBenchTestbed

#if canImport(Glibc)
    import Glibc
#endif

/// Scenarios on the radio model (docs/LINK-MODEL.md, "Scenarios"): walk-away and
/// body-block change the attenuation the channel trace sees, so SNR, MCS, rate and
/// loss follow the model; an outage and a trace act on packets in the emulator.
extension RadioModel {
    /// Walk-away samples its added path loss this often.
    static let walkStepNanos: UInt64 = 100_000_000
    /// Samples kept of a walk (one hour at 100 ms): a longer walk holds its last value.
    static let maxWalkSamples = 36_000

    public func apply(_ scenario: ScenarioSpec, environment: EnvironmentSpec, to link: ResolvedLink) throws -> ResolvedLink {
        var link = link
        var channel = link.channel as? EmulatedChannel ?? EmulatedChannel()
        var timeline = ScenarioTimeline()
        let env = try radioEnvironment(environment)
        func need(_ what: String) throws -> RadioEnvironment {
            guard let env else {
                throw InputError(
                    path: "$.matrix.scenarios",
                    "scenario \"\(scenario.name)\" (\(what)) changes the radio channel, and environment \"\(environment.name)\" has fixed link parameters and no radio model; use it with a built-in or \"radio\" environment, or use an outage or trace scenario"
                )
            }
            return env
        }
        let s = Self.figure
        var event: ScenarioEvent
        switch scenario.kind {
        case .static:
            return link
        case .outage(let at, let duration):
            timeline.outages = [UInt64(at * 1e9)..<UInt64((at + duration) * 1e9)]
            event = ScenarioEvent(
                name: scenario.name, kind: scenario.kindName, startSeconds: at, endSeconds: at + duration,
                deadSeconds: duration, deadStartSeconds: at,
                timeline: [
                    "0-\(s(at)) s: as resolved", "\(s(at))-\(s(at + duration)) s: nothing crosses either way",
                    "from \(s(at + duration)) s: as resolved",
                ])
        case .bodyBlock(let depth, let length, let period):
            let env = try need("body-block")
            timeline.block = PeriodicBlock(depthDb: depth, lengthNanos: UInt64(length * 1e9), periodNanos: UInt64(period * 1e9))
            let snr = link.snrDb ?? 0
            // A block deep enough to take the median SNR below MCS 0 is a dead stretch.
            let dead = MCSTable.select(snrDb: snr - depth) == nil
            event = ScenarioEvent(
                name: scenario.name, kind: scenario.kindName, startSeconds: period, endSeconds: period + length,
                deadSeconds: dead ? length : 0, deadStartSeconds: dead ? period : nil,
                timeline: [
                    "every \(s(period)) s from \(s(period)) s: +\(s(depth)) dB for \(s(length)) s "
                        + "(median SNR \(s(snr)) -> \(s(snr - depth)) dB, \(Self.mcsText(snr - depth, marginDb: env.rateAdaptationMarginDb)))"
                ])
        case .walkAway(let speed, let to, let back):
            event = Self.walkAway(scenario, speed: speed, to: to, back: back, in: try need("walk-away"), from: link, timeline: &timeline)
        case .trace(let up, let down):
            timeline.traceUp = DeliveryOpportunities(up)
            timeline.traceDown = DeliveryOpportunities(down)
            event = ScenarioEvent(
                name: scenario.name, kind: scenario.kindName, startSeconds: nil, endSeconds: nil,
                timeline: [
                    "up: \(up.summary), repeating", "down: \(down.summary), repeating",
                    "the traces replace the rate; delay, jitter and loss stay as resolved",
                ])
        }
        channel.scenario = timeline
        link.channel = channel
        link.scenario = event
        return link
    }

    /// Walk-away: the added path loss every `walkStepNanos` into `timeline`, from the
    /// link's distance to the target (and back); the event with its longest stretch
    /// below MCS 0 at the median SNR.
    static func walkAway(
        _ scenario: ScenarioSpec, speed: Double, to: DistanceSpec, back: Bool, in env: RadioEnvironment,
        from link: ResolvedLink, timeline: inout ScenarioTimeline
    ) -> ScenarioEvent {
        let s = figure
        let d0 = link.distanceMeters ?? 1
        let target: Double = if case .meters(let m) = to { m } else { Self.maxDistance(env) }
        let legSeconds = abs(target - d0) / speed
        let total = back ? 2 * legSeconds : legSeconds
        let samples = min(Self.maxWalkSamples, Int((total * 1e9 / Double(Self.walkStepNanos)).rounded(.up)) + 1)
        let base = Self.pathLossDb(env, distance: d0)
        let snr0 = link.snrDb ?? Self.medianSnrDb(env, distance: d0)
        var dead = (longest: 0.0, start: nil as Double?), run = (length: 0.0, start: 0.0)
        let step = Double(Self.walkStepNanos) / 1e9
        timeline.attenuationStepNanos = Self.walkStepNanos
        timeline.attenuationDb = (0..<samples).map { i in
            let t = Double(i) * step
            let walked = min(t, legSeconds) * speed - max(0, t - legSeconds) * speed
            let d = target >= d0 ? d0 + walked : d0 - walked
            let att = Self.pathLossDb(env, distance: d) - base
            // Below MCS 0 at the median the radio cannot hold the link: a dead stretch.
            if MCSTable.select(snrDb: snr0 - att) == nil {
                if run.length == 0 { run.start = t }
                run.length += step
                if run.length > dead.longest { dead = (run.length, run.start) }
            } else {
                run.length = 0
            }
            return att
        }
        let farSnr = Self.medianSnrDb(env, distance: target)
        var lines = [
            "0-\(s(legSeconds)) s: \(s(d0)) m -> \(s(target)) m at \(s(speed)) m/s (median SNR \(s(snr0)) -> \(s(farSnr)) dB, \(Self.mcsText(farSnr, marginDb: env.rateAdaptationMarginDb)))"
        ]
        if back { lines.append("\(s(legSeconds))-\(s(total)) s: back to \(s(d0)) m") }
        if dead.longest > 0 { lines.append("below MCS 0 at the median for \(s(dead.longest)) s from \(s(dead.start ?? 0)) s") }
        return ScenarioEvent(
            name: scenario.name, kind: scenario.kindName, startSeconds: 0, endSeconds: back ? total : nil,
            deadSeconds: dead.longest, deadStartSeconds: dead.start, timeline: lines)
    }

    /// A figure for the scenario's timeline text: at most two decimals, none when whole.
    static func figure(_ x: Double) -> String {
        let r = (x * 100).rounded() / 100
        return r == r.rounded() ? String(Int(r)) : String(r)
    }

    /// The radio environment behind a matrix environment; nil for fixed link parameters.
    func radioEnvironment(_ e: EnvironmentSpec) throws -> RadioEnvironment? {
        switch e.kind {
        case .fixed: return nil
        case .builtIn: return environment(named: e.name)
        case .radio(let profile): return try RadioProfile.environment(profile, name: e.name)
        }
    }

    static func mcsText(_ snr: Double, marginDb: Double) -> String {
        MCSTable.select(snrDb: snr, marginDb: marginDb).map { "MCS \($0.index)" } ?? "below MCS 0"
    }
}
