import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem
import Testing

@testable import UWBRanging

/// The measurement model, exercised directly over many rounds: the network is not the point here.
@Suite(.timeLimit(.minutes(3))) struct RangingModelTests {
    static func model(
        seed: UInt64 = 42, rate: Double = 50, env: EnvironmentProfile = .freeField, peer: DeviceClass = .phone,
        chip: ChipGeneration = .first
    ) -> RangingModel {
        RangingModel(localChip: chip, peerChip: chip, directionCapable: peer == .phone, updateRateHz: rate, seed: seed, environment: env)
    }

    static func samples(_ n: Int, _ scene: RangingScene, seed: UInt64 = 42, peer: DeviceClass = .phone, chip: ChipGeneration = .first) -> [UWBRanging
        .RangingSample]
    {
        var m = model(seed: seed, env: scene.environment, peer: peer, chip: chip)
        return (0..<n).map { _ in m.next(scene) }
    }

    /// The same on a thread of its own: hundreds of thousands of rounds would otherwise
    /// hold one of the two cooperative threads that the network tests running in
    /// parallel need.
    static func sampled(
        _ n: Int, _ scene: RangingScene, seed: UInt64 = 42, peer: DeviceClass = .phone,
        chip: ChipGeneration = .first
    ) async throws -> [UWBRanging.RangingSample] {
        try await BlockingThread.run(name: "model") { samples(n, scene, seed: seed, peer: peer, chip: chip) }
    }

    static func stats(_ x: [Double]) -> (mean: Double, stddev: Double) {
        let mean = x.reduce(0, +) / Double(x.count)
        return (mean, (x.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(x.count - 1)).squareRoot())
    }

    @Test(arguments: [1.0, 5.0, 9.0], [1, 5, 42] as [UInt64])
    func freeFieldWithinNineMetres(distance: Double, seed: UInt64) async throws {
        let s = try await Self.sampled(50_000, RangingScene(distanceMeters: distance, environment: .freeField), seed: seed)
        let withDistance = s.filter { $0.distance != nil }
        #expect(Double(withDistance.count) / Double(s.count) > 0.97, "availability")
        // Line of sight: the model's 5–10 cm noise, unbiased.
        let los = withDistance.filter(\.lineOfSight).map { Double($0.distance!) - distance }
        let (mean, sd) = Self.stats(los)
        #expect(sd >= 0.05 && sd <= 0.10, "LoS stddev \(sd)")
        #expect(abs(mean) < 0.005, "LoS mean \(mean)")
        // All rounds, the rare (1.5 %) blocked ones included: about 9 cm (docs/UWB.md's
        // table), a little above the LoS figure for some seeds because blockages come
        // in correlated episodes; 95 % within 20 cm (Heinrich et al.).
        let errors = withDistance.map { Double($0.distance!) - distance }
        let overall = Self.stats(errors)
        #expect(overall.stddev >= 0.05 && overall.stddev <= 0.12, "overall stddev \(overall.stddev)")
        let magnitudes = errors.map(abs).sorted()
        #expect(magnitudes[Int(0.95 * Double(magnitudes.count))] < 0.20)
    }

    @Test func nonLineOfSightAddsAPositiveHeavyTailedBias() async throws {
        let s = try await Self.sampled(40_000, RangingScene(distanceMeters: 5, environment: .forest))
        let nlos = s.filter { !$0.lineOfSight && $0.distance != nil }.map { Double($0.distance!) - 5 }.sorted()
        let nlosFraction = Double(s.filter { !$0.lineOfSight }.count) / Double(s.count)
        #expect(abs(nlosFraction - EnvironmentProfile.forest.nlosProbability) < 0.1, "NLoS fraction \(nlosFraction)")
        let median = nlos[nlos.count / 2]
        #expect(median > 0.3 && median < 0.5, "NLoS median bias \(median)")
        #expect(nlos[nlos.count * 5 / 100] > 0, "even the 5th percentile is biased long")
        #expect(nlos.last! > 1.0, "a heavy tail beyond 1 m")
        // Dropouts: more without line of sight.
        let nlosDrops = Double(s.filter { !$0.lineOfSight && $0.distance == nil }.count) / Double(s.filter { !$0.lineOfSight }.count)
        #expect(abs(nlosDrops - EnvironmentProfile.forest.nlosDropout) < 0.03, "NLoS dropout \(nlosDrops)")
    }

    @Test func environmentsOrderByObstruction() async throws {
        func availability(_ env: EnvironmentProfile) async throws -> Double {
            let s = try await Self.sampled(20_000, RangingScene(distanceMeters: 5, environment: env))
            return Double(s.filter { $0.distance != nil }.count) / Double(s.count)
        }
        let free = try await availability(.freeField), city = try await availability(.innerCity), forest = try await availability(.forest)
        #expect(free > city)
        #expect(city > forest)
        // A custom environment name behaves like the free field.
        #expect(EnvironmentProfile.named("lab").nlosProbability == EnvironmentProfile.freeField.nlosProbability)
        #expect(EnvironmentProfile.named("lab").name == "lab")
    }

    @Test func beyondReachThereIsNoDistanceAtAll() async throws {
        let first = try await Self.sampled(2_000, RangingScene(distanceMeters: 31), chip: .first)
        #expect(first.allSatisfy { $0.distance == nil && $0.direction == nil })
        // The second-generation chip still reaches 31 m, with more noise and dropouts than at 5 m.
        let second = try await Self.sampled(2_000, RangingScene(distanceMeters: 31), chip: .second)
        let available = Double(second.filter { $0.distance != nil }.count) / Double(second.count)
        #expect(available > 0.5 && available < 0.97, "availability at 31 m with U2: \(available)")
        let far = try await Self.sampled(2_000, RangingScene(distanceMeters: 51), chip: .second)
        #expect(far.allSatisfy { $0.distance == nil })
    }

    @Test func directionOnlyInsideTheFieldOfView() async throws {
        let inside = try await Self.sampled(5_000, RangingScene(distanceMeters: 3, bearingDegrees: 45))
        let withDirection = inside.compactMap(\.direction)
        #expect(Double(withDirection.count) / Double(inside.count) > 0.9)
        // The vectors are unit length and point 45° to the right of the phone's back (−z).
        let meanAzimuth = withDirection.map { Double(atan2($0.x, -$0.z)) * 180 / .pi }.reduce(0, +) / Double(withDirection.count)
        #expect(abs(meanAzimuth - 45) < 1, "azimuth \(meanAzimuth)")
        #expect(withDirection.allSatisfy { abs(($0 * $0).sum() - 1) < 1e-4 })

        for bearing in [61.0, -90, 180, 135] {
            let outside = try await Self.sampled(2_000, RangingScene(distanceMeters: 3, bearingDegrees: bearing))
            #expect(outside.allSatisfy { $0.direction == nil }, "bearing \(bearing)")
            #expect(Double(outside.filter { $0.distance != nil }.count) / Double(outside.count) > 0.95, "distances still arrive")
        }
    }

    @Test func aWatchPeerNeverGetsDirection() async throws {
        let s = try await Self.sampled(5_000, RangingScene(distanceMeters: 2, bearingDegrees: 0), peer: .watch)
        #expect(s.allSatisfy { $0.direction == nil })
        #expect(s.filter { $0.distance != nil }.count > 4_800)
    }

    @Test func sameSeedSameSamplesOtherSeedOthers() async throws {
        let scene = RangingScene(distanceMeters: 12, bearingDegrees: 20, environment: .innerCity)
        let a = try await Self.sampled(3_000, scene, seed: 5), b = try await Self.sampled(3_000, scene, seed: 5)
        let c = try await Self.sampled(3_000, scene, seed: 6)
        #expect(a == b)
        #expect(a != c)
        #expect(Self.model(seed: 5).startupDelaySeconds == Self.model(seed: 5).startupDelaySeconds)
    }

    @Test func startupDelayWithinTheModelsRange() async throws {
        let delays = (0..<500).map { Self.model(seed: UInt64($0)).startupDelaySeconds }
        #expect(delays.allSatisfy { RangingModel.startupRange.contains($0) })
        #expect(delays.min()! < 0.25 && delays.max()! > 0.45)
    }
}

#if canImport(Glibc)
    import Glibc
#endif
