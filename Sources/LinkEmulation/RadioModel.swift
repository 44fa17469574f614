public import PeerBenchJSON
public import PeerBenchPlugin
import PeerBenchTestbed

#if canImport(Glibc)
    import Glibc
#endif

/// The field study's radio link: (environment, distance) -> received power, SNR,
/// MCS, rate, loss and the AWDL channel, after LINK-MODEL.md.
///
/// PL(d) = FSPL(1 m) + 10 n log10(d) [+ 10 n' log10(d / breakpoint) beyond it]
///         [+ Weissberger foliage loss]; RSSI = TX - body loss - PL;
/// SNR = RSSI - (-174 + 10 log10(80 MHz) + NF + interference).
public struct RadioModel: LinkModel {
    /// Free-space path loss at the 1 m reference distance, 5.22 GHz (channel 44) [D].
    public static let fsplOneMeterDb = 46.8
    /// Carrier frequency, GHz (for Weissberger).
    public static let frequencyGHz = 5.22
    /// MTU of awdl0 [D].
    public static let awdlMTU = 1_484
    /// Fade margin for "max": 1.28 sigma = 90 % coverage [A].
    public static let maxFadeMarginSigmas = 1.28

    public init() {}

    public var builtInEnvironments: [String] { RadioEnvironment.builtIns.map(\.name) }

    /// The built-in environment of that name, nil if there is none.
    public func environment(named name: String) -> RadioEnvironment? {
        RadioEnvironment.builtIns.first { $0.name == name }
    }

    public func validateProfile(_ profile: JSONValue, path: JSONPath) -> [InputProblem] {
        RadioProfile.validate(profile, path: path)
    }

    // MARK: Propagation

    /// Weissberger's modified exponential decay foliage loss, dB, for `d` metres of trees.
    public static func foliageLossDb(distance d: Double) -> Double {
        let f = pow(frequencyGHz, 0.284)
        if d <= 0 { return 0 }
        if d <= 14 { return 0.45 * f * d }
        return 1.33 * f * pow(min(d, 400), 0.588)
    }

    /// Median path loss at `d` metres (distances under 1 m are taken as 1 m, the reference).
    public static func pathLossDb(_ env: RadioEnvironment, distance: Double) -> Double {
        let d = max(distance, 1)
        var pl = fsplOneMeterDb
        if let bp = env.breakpointMeters, d > bp {
            pl += 10 * env.pathLossExponent * log10(bp) + 10 * env.beyondBreakpointExponent * log10(d / bp)
        } else {
            pl += 10 * env.pathLossExponent * log10(d)
        }
        if env.foliage { pl += foliageLossDb(distance: d) }
        return pl
    }

    /// Thermal noise over the channel plus noise figure and interference, dBm.
    public static func noiseFloorDbm(_ env: RadioEnvironment) -> Double {
        -174 + 10 * log10(MCSTable.channelWidthMHz * 1e6) + env.noiseFigureDb + env.interferenceDb
    }

    public static func rssiDbm(_ env: RadioEnvironment, distance: Double) -> Double {
        env.txPowerDbm - env.bodyLossDb - pathLossDb(env, distance: distance)
    }

    /// Median SNR at `distance`, dB.
    public static func medianSnrDb(_ env: RadioEnvironment, distance: Double) -> Double {
        rssiDbm(env, distance: distance) - noiseFloorDbm(env)
    }

    /// The largest distance (whole metres, at least 1) whose median SNR clears MCS 0
    /// with a 1.28 sigma fade margin. Path loss grows with distance, so bisection finds it.
    public static func maxDistance(_ env: RadioEnvironment) -> Double {
        let need = MCSTable.mcs0MinSnrDb + maxFadeMarginSigmas * env.shadowingSigmaDb
        func ok(_ d: Double) -> Bool { medianSnrDb(env, distance: d) >= need }
        guard ok(1) else { return 1 }
        var lo = 1.0, hi = 100_000.0
        if ok(hi) { return hi }
        while hi - lo > 0.01 {
            let mid = (lo + hi) / 2
            if ok(mid) { lo = mid } else { hi = mid }
        }
        return lo.rounded(.down)
    }

    /// Fraction of time a body blocks the path (alternating renewal process).
    static func blockedFraction(_ env: RadioEnvironment) -> Double {
        let busy = env.blockingPerSecond * env.blockingMeanMs / 1_000
        return busy / (1 + busy)
    }

    /// Long-run packet loss: the loss cliff averaged over shadowing and blocking episodes.
    public static func expectedLoss(_ env: RadioEnvironment, medianSnrDb snr: Double) -> Double {
        func overShadowing(_ s: Double) -> Double {
            let sigma = env.shadowingSigmaDb
            guard sigma > 0 else { return MCSTable.lossProbability(snrDb: s) }
            var sum = 0.0, weight = 0.0
            for i in -40...40 {
                let z = Double(i) / 8  // -5 sigma ... 5 sigma
                let w = exp(-z * z / 2)
                sum += w * MCSTable.lossProbability(snrDb: s + sigma * z)
                weight += w
            }
            return sum / weight
        }
        let clear = overShadowing(snr)
        let b = blockedFraction(env)
        guard b > 0 else { return clear }
        let depths = (0..<5).map {
            env.blockingDepthDb.lowerBound + (Double($0) + 0.5) / 5 * (env.blockingDepthDb.upperBound - env.blockingDepthDb.lowerBound)
        }
        let blocked = depths.map { overShadowing(snr - $0) }.reduce(0, +) / Double(depths.count)
        return (1 - b) * clear + b * blocked
    }

    // MARK: Resolution

    public func resolve(environment: String, profile: JSONValue?, distance: Double?, distanceLabel: String) throws -> ResolvedLink {
        let env: RadioEnvironment
        if let profile {
            env = try RadioProfile.environment(profile, name: environment)
        } else if let e = self.environment(named: environment) {
            env = e
        } else {
            throw InputError(
                path: nil,
                "unknown environment \"\(environment)\"; built-in environments are \(builtInEnvironments.joined(separator: ", ")), or define an inline radio profile or fixed link"
            )
        }
        if let distance, !(distance > 0 && distance.isFinite) {
            throw InputError(path: nil, "distance \(distance) m for \(environment) must be a positive number of metres or \"max\"")
        }
        return Self.resolve(env, distance: distance, distanceLabel: distanceLabel)
    }

    /// Resolves a radio environment at a distance (nil = "max").
    public static func resolve(_ env: RadioEnvironment, distance: Double?, distanceLabel: String) -> ResolvedLink {
        let maxD = maxDistance(env)
        let d = distance ?? maxD
        let pl = pathLossDb(env, distance: d)
        let rssi = env.txPowerDbm - env.bodyLossDb - pl
        let noise = noiseFloorDbm(env)
        let snr = rssi - noise
        let mcs = MCSTable.select(snrDb: snr, marginDb: env.rateAdaptationMarginDb)
        var r = ResolvedLink(environment: env.name, distanceMeters: d, distanceLabel: distanceLabel)
        r.rssiDbm = rssi.rounded(digits: 1)
        r.snrDb = snr.rounded(digits: 1)
        r.mcs = mcs?.index
        r.phyRateMbps = mcs.map { MCSTable.phyRateMbps($0).rounded(digits: 1) }
        // Below MCS 0 the radio keeps trying at MCS 0's rate; the loss cliff decides what crosses.
        let rateEntry = mcs ?? MCSTable.entries[0]
        var mac = FrameAggregation.vht
        mac.maxMPDUs = env.aggregateMPDUs
        let airRate = MCSTable.phyRateMbps(rateEntry) * env.rateFactor * 1e6
        // The usable rate of a long bulk transfer: full aggregates back to back.
        r.rateMbps = (airRate / 1e6 * mac.efficiency(phyBitsPerSecond: airRate) * env.schedule.onFraction).rounded(digits: 1)
        r.connected = mcs != nil
        r.delayMs = env.delayMs
        r.jitterMs = env.jitterMs
        r.lossPercent = (expectedLoss(env, medianSnrDb: snr) * 100).rounded(digits: 3)
        r.mtu = awdlMTU
        var radio = RadioDynamics(
            medianSnrDb: snr, shadowingSigmaDb: env.shadowingSigmaDb, shadowingCorrelationMs: env.shadowingCorrelationMs,
            blockingPerSecond: env.blockingPerSecond, blockingMeanMs: env.blockingMeanMs, blockingDepthDb: env.blockingDepthDb)
        radio.rateFactor = env.rateFactor
        radio.adaptationMarginDb = env.rateAdaptationMarginDb
        radio.macEfficiency = 1
        var channel = EmulatedChannel(
            schedule: env.schedule, burstLoss: BurstLoss(meanBurstPackets: env.burstLossPackets),
            radio: radio, queue: env.queue)
        channel.aggregation = mac
        channel.airRateBitsPerSecond = airRate
        channel.backpressure = env.backpressure
        r.channel = channel
        r.queueBytes = env.backpressure ? nil : env.queue.bytes
        return r
    }

    // MARK: Description

    public func describe() -> [String] {
        var lines = [
            "radio model: log-distance path loss, FSPL(1 m) = \(Self.fsplOneMeterDb) dB at \(Self.frequencyGHz) GHz [D]; 802.11ac VHT, 80 MHz, \(MCSTable.spatialStreams) spatial streams [D/A]",
            "  rate = PHY x rate factor x aggregation efficiency x on-channel fraction, air time charged per aggregate (channel access + exchange) and per MPDU [D]; loss cliff centred \(MCSTable.cliffCentreDb) dB above MCS 0 (\(MCSTable.mcs0MinSnrDb) dB), width \(MCSTable.cliffWidthDb) dB [A]; MTU \(Self.awdlMTU) [D]",
            "  \"max\" = largest distance whose median SNR clears MCS 0 with a \(Self.maxFadeMarginSigmas) sigma fade margin [A]",
        ]
        for env in RadioEnvironment.builtIns {
            lines.append("environment \(env.name): max \(Int(Self.maxDistance(env))) m")
            for (key, value) in Self.parameterValues(env) {
                let (tag, source) = env.sources[key] ?? (.assumed, "")
                lines.append("  \(key) = \(value) [\(tag.rawValue)] \(source)")
            }
        }
        return lines
    }

    /// Each overridable parameter's value as text, in profile-key order.
    public static func parameterValues(_ env: RadioEnvironment) -> [(String, String)] {
        func f(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : String(v) }
        return [
            ("pathLossExponent", f(env.pathLossExponent)),
            ("breakpointMeters", env.breakpointMeters.map(f) ?? "none"),
            ("beyondBreakpointExponent", env.breakpointMeters == nil ? "-" : f(env.beyondBreakpointExponent)),
            ("foliage", env.foliage ? "Weissberger" : "none"),
            ("shadowingSigmaDb", f(env.shadowingSigmaDb)),
            ("shadowingCorrelationMs", f(env.shadowingCorrelationMs)),
            ("interferenceDb", f(env.interferenceDb)),
            ("blockingPerSecond", f(env.blockingPerSecond)),
            ("blockingMeanMs", f(env.blockingMeanMs)),
            ("blockingDepthDb", "\(f(env.blockingDepthDb.lowerBound))-\(f(env.blockingDepthDb.upperBound))"),
            ("awdl", env.schedule.name),
            ("awdlOffSlots", String(env.schedule.offSlotCount)),
            ("awdlWindowMiss", f(env.schedule.windowMissProbability)),
            ("rateFactor", f(env.rateFactor)),
            ("rateAdaptationMarginDb", f(env.rateAdaptationMarginDb)),
            ("txPowerDbm", f(env.txPowerDbm)),
            ("bodyLossDb", f(env.bodyLossDb)),
            ("noiseFigureDb", f(env.noiseFigureDb)),
            ("delayMs", f(env.delayMs)),
            ("jitterMs", f(env.jitterMs)),
            ("burstLossPackets", f(env.burstLossPackets)),
            ("queuePackets", String(env.queue.packets)),
            ("queueBytes", String(env.queue.bytes)),
            ("aggregateMPDUs", String(env.aggregateMPDUs)),
            ("queueOverflow", env.backpressure ? "backpressure" : "drop"),
        ]
    }
}

extension Double {
    /// Rounded to `digits` decimals, dividing last so records show -56.8, not -56.800000000000004.
    func rounded(digits: Int) -> Double {
        let m = Glibc.pow(10, Double(digits))
        return (self * m).rounded() / m
    }
}
