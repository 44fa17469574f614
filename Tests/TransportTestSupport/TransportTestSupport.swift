import Foundation
import Logging
import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchTestbed

// What the transport test targets share: a loopback link model, running a matrix
// through the real runner, and timing helpers that stay off Swift's cooperative pool.

/// The package root, found from this file's location.
public let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

/// Every environment resolves to an unimpaired, connected link: what `--link none` runs on.
public struct LoopbackLinkModel: LinkModel {
    public init() {}
    public var builtInEnvironments: [String] { ["loopback"] }
    public func validateProfile(_ profile: JSONValue, path: JSONPath) -> [InputProblem] { [] }
    public func resolve(environment: String, profile: JSONValue?, distance: Double?, distanceLabel: String) throws -> ResolvedLink {
        ResolvedLink(environment: environment, distanceMeters: distance ?? 1, distanceLabel: distanceLabel)
    }
    public func describe() -> [String] { [] }
}

/// Runs `transports` (a JSON array text) of `plugins` through the real runner on
/// `testbed` (loopback unless given) and returns the records, as `peerbench run
/// --link none` would write them. `extra`: more top-level keys, each followed by a comma.
public func runMatrix(
    _ plugins: [any TransportPlugin.Type], transports: String, counts: String = "[1000]",
    sizes: String = "[1024]", probes: Int = 20, timeout: Double = 30,
    testbed: any Testbed = LoopbackTestbed(), rttMethod: RTTMethod = .pingPong,
    extra: String = ""
) async throws -> [JSONValue] {
    let text = """
        {\(extra)"rttProbes": \(probes), "rttMethod": "\(rttMethod.name)", "transports": \(transports),
         "matrix": {"environments": ["loopback"], "distances": [1], "payloads": {"counts": \(counts), "sizes": \(sizes)}}}
        """
    let registry = PluginRegistry(plugins)
    let matrix = try MatrixLoader(registry: registry, linkModel: LoopbackLinkModel()).parse(Array(text.utf8))
    let plan = try RunPlan(
        matrix: matrix, options: RunOptions(matrixFile: "test.json", commandLine: [], cellTimeoutSeconds: timeout),
        linkModel: LoopbackLinkModel())
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("pb-test-run-\(UUID())").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    let dir = try RunDirectory.create(path, for: plan.matrix)
    let runner = Runner(registry: registry, testbed: testbed, logger: Logger(label: "test"))
    _ = try await runner.run(plan, runID: "test", into: dir, observer: nil)
    return dir.readRecords().records.map(\.json)
}

/// A loopback cell built the way the runner builds one.
public func makeCell(
    payload: Payload?, probes: Int = 10, seconds: Double = 20, seed: UInt64 = 1, environment: String = "test",
    distance: Double? = nil
) -> CellContext {
    .loopback(payload: payload, rttProbes: probes, timeoutSeconds: seconds, seed: seed, environment: environment, distanceMeters: distance)
}

/// Runs blocking `body` on its own thread and times it there, so the figure does not
/// include waiting for Swift's cooperative pool (which other suites may keep busy).
public func timedOnThread(_ body: @escaping @Sendable () throws -> Void) async -> (error: (any Error)?, nanos: UInt64) {
    await withCheckedContinuation { continuation in
        Thread {
            let start = MonotonicClock.now()
            var failure: (any Error)?
            do { try body() } catch { failure = error }
            continuation.resume(returning: (failure, MonotonicClock.elapsed(since: start)))
        }.start()
    }
}

/// Calls `body` after `milliseconds` from a thread of its own (not a Task: a busy
/// cooperative pool would delay it).
public func after(milliseconds: Int, _ body: @escaping @Sendable () -> Void) {
    Thread {
        usleep(useconds_t(milliseconds * 1_000))
        body()
    }.start()
}
