import Foundation
import Logging
import PeerBenchCore

/// A loopback cell built the way the runner builds one.
func makeCell(payload: Payload?, probes: Int = 10, seconds: Double = 20) -> CellContext {
    .loopback(payload: payload, rttProbes: probes, timeoutSeconds: seconds)
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
