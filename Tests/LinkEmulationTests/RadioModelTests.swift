import PeerBenchTestbed
import Testing

@testable import LinkEmulation
@testable import PeerBenchCore
@testable import PeerBenchJSON
@testable import PeerBenchPlugin
@testable import PeerBenchSystem

@Suite
struct RadioModelTests {
    /// The MAC of the built-in environments: 802.11ac's timing, the fitted MPDUs per aggregate.
    static let fieldStudyMAC: FrameAggregation = {
        var mac = FrameAggregation.vht
        mac.maxMPDUs = FieldStudyCalibration.aggregateMPDUs
        return mac
    }()

    let model = RadioModel()

    func link(_ env: String, _ d: Double?) throws -> ResolvedLink {
        try model.resolve(environment: env, profile: nil, distance: d, distanceLabel: d.map { String(Int($0)) } ?? "max")
    }

    @Test("SNR falls monotonically with distance in every environment", arguments: RadioEnvironment.builtIns.map(\.name))
    func monotoneSnr(env: String) throws {
        let e = try #require(model.environment(named: env))
        var previous = Double.infinity
        for d in stride(from: 1.0, through: 500, by: 0.5) {
            let snr = RadioModel.medianSnrDb(e, distance: d)
            #expect(snr < previous, "\(env): SNR at \(d) m is \(snr) dB, not below \(previous)")
            previous = snr
        }
    }

    @Test("the forest reaches less far than the free field")
    func forestShorter() {
        #expect(RadioModel.maxDistance(.forest) < RadioModel.maxDistance(.freeField))
    }

    @Test("the inner city is worse than the free field at the same distance", arguments: [1.0, 10, 20])
    func innerCityWorse(d: Double) throws {
        let free = try link("free-field", d), l = try link("inner-city", d)
        #expect(l.snrDb! < free.snrDb!, "inner-city at \(d) m")
        #expect(l.lossPercent! >= free.lossPercent!, "inner-city at \(d) m")
        #expect((l.rateMbps ?? 0) <= free.rateMbps!, "inner-city at \(d) m")
    }

    @Test(
        "the underground station's guided waves: over 35 m connect (the study's author: 'no problem at all'), and from 30 m on its SNR beats the free field's"
    )
    func undergroundGuidesWaves() throws {
        #expect(RadioModel.maxDistance(.underground) > 35)
        for d in [30.0, 60] {
            #expect(try link("underground", d).snrDb! > link("free-field", d).snrDb!, "at \(d) m")
        }
    }

    @Test("1 m in the free field: top MCS, full rate after MAC overhead and channel time")
    func shortRange() throws {
        let l = try link("free-field", 1)
        // 15 dBm - body loss - 46.8 dB; noise -88 dBm: SNR 56.2 dB - body loss -> MCS 9
        // for any body loss the fit may choose (it stops at 11 dB: 45.2 dB, MCS 9 needs 38).
        let body = FieldStudyCalibration.bodyLossDb
        #expect(abs(l.rssiDbm! - (-31.8 - body)) < 0.05)
        #expect(abs(l.snrDb! - (56.2 - body)) < 0.1)
        #expect(l.mcs == 9)
        #expect(l.phyRateMbps == 780)
        // The air runs at the PHY rate times the pair's share; full aggregates back to back.
        let air = 780e6 * FieldStudyCalibration.rateFactor
        #expect(abs(l.rateMbps! - air / 1e6 * Self.fieldStudyMAC.efficiency(phyBitsPerSecond: air)) < 0.1)
        #expect(l.mtu == 1_484)
        #expect(l.connected)
        #expect(l.lossPercent! < 0.001)
        let channel = try #require(l.channel as? EmulatedChannel)
        #expect(channel.schedule.isAlwaysOn && channel.schedule.windowNanos == ChannelSchedule.availabilityWindowNanos)
        #expect(channel.schedule.windowMissProbability == FieldStudyCalibration.windowMiss["free-field"])
        #expect(channel.radio?.rateFactor == FieldStudyCalibration.rateFactor)
    }

    @Test("\"max\" is the largest distance whose median SNR clears MCS 0 with a 1.28 sigma margin", arguments: RadioEnvironment.builtIns)
    func maxDistance(env: RadioEnvironment) throws {
        let l = try link(env.name, nil)
        let d = try #require(l.distanceMeters)
        #expect(l.distanceLabel == "max")
        let need = MCSTable.mcs0MinSnrDb + 1.28 * env.shadowingSigmaDb
        #expect(RadioModel.medianSnrDb(env, distance: d) >= need)
        #expect(RadioModel.medianSnrDb(env, distance: d + 1) < need)
        #expect(l.connected && l.mcs != nil)
        // Beyond twice the max nothing connects.
        #expect(try !link(env.name, 2 * d + 50).connected)
    }

    @Test("the two-ray breakpoint steepens free-field loss beyond 100 m")
    func breakpoint() {
        let e = RadioEnvironment.freeField
        let near = RadioModel.pathLossDb(e, distance: 100) - RadioModel.pathLossDb(e, distance: 50)
        let far = RadioModel.pathLossDb(e, distance: 200) - RadioModel.pathLossDb(e, distance: 100)
        #expect(abs(near - 20 * log10(2.0)) < 0.01)
        #expect(abs(far - 40 * log10(2.0)) < 0.01)
    }

    @Test("an inline profile overrides its base; realtime AWDL has no off-channel slots")
    func inlineProfile() throws {
        let profile: JSONValue = [
            "name": "my-park",
            "radio": ["base": "free-field", "pathLossExponent": 2.3, "shadowingSigmaDb": 4, "interferenceDb": 2, "awdl": "realtime"],
        ]
        #expect(model.validateProfile(profile, path: JSONPath.root.key("matrix").key("environments").index(4)).isEmpty)
        let l = try model.resolve(environment: "my-park", profile: profile, distance: 30, distanceLabel: "30")
        let free = try link("free-field", 30)
        #expect(l.environment == "my-park")
        #expect(l.snrDb! < free.snrDb!)
        let channel = try #require(l.channel as? EmulatedChannel)
        #expect(channel.schedule.isAlwaysOn && channel.schedule.windowNanos == nil)
        let air = l.phyRateMbps! * 1e6 * FieldStudyCalibration.rateFactor
        #expect(abs(l.rateMbps! - air / 1e6 * Self.fieldStudyMAC.efficiency(phyBitsPerSecond: air)) < 0.1)
    }

    @Test("validation names the JSON path of every bad key")
    func validationPaths() {
        let at = JSONPath.root.key("matrix").key("environments").index(2)
        let profile: JSONValue = [
            "name": "x", "radio": ["base": "moon", "pathLossExponent": "steep", "awdl": "sometimes", "colour": 3, "blockingDepthDb": [20, 10]],
        ]
        let problems = model.validateProfile(profile, path: at)
        let paths = Set(problems.compactMap(\.path))
        #expect(
            paths == [
                "$.matrix.environments[2].radio.base",
                "$.matrix.environments[2].radio.pathLossExponent",
                "$.matrix.environments[2].radio.awdl",
                "$.matrix.environments[2].radio.colour",
                "$.matrix.environments[2].radio.blockingDepthDb",
            ], "\(problems)")
        #expect(problems.first { $0.path!.hasSuffix("colour") }!.message.contains("unknown"))
        #expect(model.validateProfile(["radio": 5], path: at).map(\.path) == ["$.matrix.environments[2].radio"])
        #expect(throws: InputError.self) { try model.resolve(environment: "x", profile: profile, distance: 10, distanceLabel: "10") }
        #expect(throws: InputError.self) { try model.resolve(environment: "mars", profile: nil, distance: 10, distanceLabel: "10") }
    }

    @Test("the calibrated AWDL keys: awdlOffSlots, awdlWindowMiss and rateFactor set the schedule and rate; bad values are named by path")
    func awdlProfileKeys() throws {
        let profile: JSONValue = ["name": "busy", "radio": ["base": "forest", "awdlOffSlots": 4, "awdlWindowMiss": 0.2, "rateFactor": 0.5]]
        let l = try model.resolve(environment: "busy", profile: profile, distance: 1, distanceLabel: "1")
        let schedule = try #require(l.channel as? EmulatedChannel).schedule
        #expect(schedule.offSlotCount == 4 && schedule.windowMissProbability == 0.2)
        #expect(schedule.windowNanos == ChannelSchedule.availabilityWindowNanos)
        // MCS 9 at 1 m: 780 x 0.5 on the air, full aggregates, 12 of 16 slots on channel.
        #expect(abs(l.rateMbps! - 390 * Self.fieldStudyMAC.efficiency(phyBitsPerSecond: 390e6) * 12 / 16) < 0.1)
        // AWDL's idle sequence, the most a profile may ask for: 3 of 16 slots on the channel.
        let idle: JSONValue = ["name": "idle", "radio": ["base": "forest", "awdlOffSlots": 13]]
        let idleSchedule = try #require(
            try model.resolve(environment: "idle", profile: idle, distance: 1, distanceLabel: "1").channel as? EmulatedChannel
        ).schedule
        #expect(idleSchedule.offSlotCount == 13 && idleSchedule.onFraction == 3.0 / 16)
        let at = JSONPath.root.key("matrix").key("environments").index(0)
        let bad: JSONValue = ["name": "x", "radio": ["awdlOffSlots": 14, "awdlWindowMiss": 1.5, "rateFactor": 0]]
        #expect(
            Set(model.validateProfile(bad, path: at).compactMap(\.path)) == [
                "$.matrix.environments[0].radio.awdlOffSlots",
                "$.matrix.environments[0].radio.awdlWindowMiss",
                "$.matrix.environments[0].radio.rateFactor",
            ])
    }

    @Test("rateAdaptationMarginDb: a wider margin picks a lower MCS at the same SNR, and the same reach; out of range is named by path")
    func adaptationMargin() throws {
        func link(_ margin: Double, at d: Double?) throws -> ResolvedLink {
            let profile: JSONValue = ["name": "m", "radio": ["base": "free-field", "rateAdaptationMarginDb": .number(margin)]]
            return try model.resolve(environment: "m", profile: profile, distance: d, distanceLabel: d.map { "\($0)" } ?? "max")
        }
        let tight = try link(0, at: 10), wide = try link(10, at: 10)
        let snr = try #require(tight.snrDb)
        #expect(wide.snrDb == snr)
        // The highest MCS whose threshold plus the margin the SNR clears, computed here from the table.
        func expected(_ margin: Double) -> Int { MCSTable.entries.last { $0.index == 0 || snr >= $0.minSnrDb + margin }!.index }
        #expect(tight.mcs == expected(0) && wide.mcs == expected(10))
        #expect(wide.mcs! < tight.mcs!, "10 dB more margin at \(snr) dB SNR: MCS \(wide.mcs!) against \(tight.mcs!)")
        #expect(wide.rateMbps! < tight.rateMbps!)
        #expect(try (wide.channel as? EmulatedChannel)?.radio?.adaptationMarginDb == 10)
        // MCS 0 needs no margin: the reach ("max") is the same.
        #expect(try link(0, at: nil).distanceMeters == link(10, at: nil).distanceMeters)
        let bad: JSONValue = ["name": "x", "radio": ["rateAdaptationMarginDb": 21]]
        #expect(model.validateProfile(bad, path: .root).compactMap(\.path) == ["$.radio.rateAdaptationMarginDb"])
    }

    @Test("fixed link parameters pass through; absent keys mean no impairment")
    func fixedLink() throws {
        let lab = EnvironmentSpec(name: "lab", kind: .fixed(FixedLink(delayMs: 10, lossPercent: 0.5, mtu: 1500)), json: "lab")
        let l = try model.resolve(lab, .max)
        #expect(l.delayMs == 10 && l.lossPercent == 0.5 && l.mtu == 1_500 && l.rateMbps == nil && l.jitterMs == nil)
        let p = EmulatorParameters(l)
        #expect(p.delayNanos == 10_000_000 && p.lossProbability == 0.005 && p.rateBitsPerSecond == nil && p.schedule.isAlwaysOn)
    }

    @Test("describe lists every environment parameter with its provenance tag")
    func describeTags() {
        let lines = model.describe()
        for env in RadioEnvironment.builtIns {
            #expect(lines.contains { $0.hasPrefix("environment \(env.name): max ") })
        }
        let parameterLines = lines.filter { $0.hasPrefix("  ") && $0.contains(" = ") && !$0.hasPrefix("  rate =") && !$0.hasPrefix("  \"max") }
        #expect(parameterLines.count == RadioEnvironment.builtIns.count * RadioModel.parameterValues(.freeField).count)
        #expect(parameterLines.allSatisfy { $0.contains("[D]") || $0.contains("[M]") || $0.contains("[A]") || $0.contains("[F]") })
        // Every fitted parameter names the script that fits it.
        #expect(parameterLines.filter { $0.contains("[F]") }.allSatisfy { $0.contains("fit-field-study") || $0.contains("FIELD-STUDY") })
        #expect(parameterLines.contains { $0.contains("awdlWindowMiss") && $0.contains("[F]") })
    }

    @Test("the channel trace is the same for the same seed and varies around the median")
    func traceDeterminism() {
        let d = RadioDynamics(
            medianSnrDb: 20, shadowingSigmaDb: 5, shadowingCorrelationMs: 300, blockingPerSecond: 0.5, blockingMeanMs: 1_000, blockingDepthDb: 10...20
        )
        func sample(_ seed: UInt64) -> [Double] {
            var t = ChannelTrace(d, seed: seed)
            return (0..<6_000).map { i in
                t.advance(to: UInt64(i) * 10_000_000)
                return t.snrDb
            }
        }
        let a = sample(9), b = sample(9), c = sample(10)
        #expect(a == b)
        #expect(a != c)
        let below = a.filter { $0 < 20 - 9 }.count  // shadowing alone is below -1.8 sigma only ~4 % of the time
        #expect(below > 6_000 / 25, "blocking episodes must pull the SNR down: \(below)")
        #expect(a.max()! < 20 + 5 * 5)
    }

    @Test("Gilbert-Elliott bursts keep the long-run loss and lengthen the runs")
    func burstLoss() {
        var r = SeededRandom(seed: 1)
        let p = 0.05, burst = BurstLoss(meanBurstPackets: 4)
        var process = LossProcess()
        var lost = 0, runs = 0, previous = false
        let n = 400_000
        for _ in 0..<n {
            let bad = process.isLost(probability: p, burst: burst, draw: r.unit(), transition: r.unit())
            if bad {
                lost += 1
                if !previous { runs += 1 }
            }
            previous = bad
        }
        #expect(abs(Double(lost) / Double(n) - p) < 0.005)
        #expect(abs(Double(lost) / Double(runs) - 4) < 0.3)
        // Near-total loss keeps its long-run value too (bursts grow longer than asked).
        var severe = LossProcess()
        let heavy = (0..<n).filter { _ in severe.isLost(probability: 0.95, burst: burst, draw: r.unit(), transition: r.unit()) }.count
        #expect(abs(Double(heavy) / Double(n) - 0.95) < 0.01)
        // Without bursts the same loss comes in runs of about 1 / (1 - p).
        var independent = LossProcess()
        lost = 0
        runs = 0
        previous = false
        for _ in 0..<n {
            let bad = independent.isLost(probability: p, burst: nil, draw: r.unit(), transition: r.unit())
            if bad {
                lost += 1
                if !previous { runs += 1 }
            }
            previous = bad
        }
        #expect(abs(Double(lost) / Double(runs) - 1 / (1 - p)) < 0.05)
    }

    @Test("A burst does not outlast a pause: sparse packets are lost independently")
    func burstStateExpiresOverAPause() {
        var r = SeededRandom(seed: 2)
        let p = 0.2, burst = BurstLoss(meanBurstPackets: 3, memoryMs: 50)
        func runs(gapNanos: UInt64) -> (loss: Double, meanRun: Double) {
            var process = LossProcess()
            var lost = 0, runs = 0, previous = false
            let n = 200_000
            for i in 0..<n {
                let bad = process.isLost(probability: p, burst: burst, draw: r.unit(), transition: r.unit(), at: UInt64(i) * gapNanos)
                if bad {
                    lost += 1
                    if !previous { runs += 1 }
                }
                previous = bad
            }
            return (Double(lost) / Double(n), Double(lost) / Double(runs))
        }
        // Packets 1 ms apart: bursts of about 3, as configured.
        let dense = runs(gapNanos: 1_000_000)
        #expect(abs(dense.loss - p) < 0.01)
        #expect(abs(dense.meanRun - 3) < 0.2)
        // Packets 1 s apart (a sender backing off): independent, runs of 1 / (1 - p) = 1.25.
        let sparse = runs(gapNanos: 1_000_000_000)
        #expect(abs(sparse.loss - p) < 0.01)
        #expect(abs(sparse.meanRun - 1.25) < 0.05)
    }
}

#if canImport(Glibc)
    import Glibc
#endif
