import Foundation
import Logging
import PeerBenchCore

/// A loopback cell built by hand, as the runner would build it.
func makeCell(payload: Payload?, probes: Int = 10, seconds: Double = 20) -> CellContext {
    CellContext(
        cellID: "test", repetition: 0, seed: 1, payload: payload, rttProbes: probes,
        deadline: MonotonicClock.now() + UInt64(seconds * 1e9),
        link: ResolvedLink(environment: "test", distanceMeters: nil, distanceLabel: "1"),
        client: Endpoint(address: "127.0.0.1"), server: Endpoint(address: "127.0.0.1"),
        cancellation: CellCancellation(), logger: Logger(label: "test"))
}

/// Runs blocking `body` on its own thread and times it there, so the figure does not
/// include waiting for Swift's cooperative pool (which other suites may keep busy).
func timedOnThread(_ body: @escaping @Sendable () throws -> Void) async -> (error: (any Error)?, nanos: UInt64) {
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
func after(milliseconds: Int, _ body: @escaping @Sendable () -> Void) {
    Thread {
        usleep(useconds_t(milliseconds * 1_000))
        body()
    }.start()
}
