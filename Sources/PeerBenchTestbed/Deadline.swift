import PeerBenchJSON
import PeerBenchPlugin
import Synchronization

/// The one grace period: seconds a cell's work gets to return after the deadline
/// cancelled it before it is abandoned (its thread may leak). In a worker process the
/// worker does this itself and then reports `timedOut`; the runner gives that report
/// as long again to arrive before it kills the worker as unresponsive.
public let cellGraceSeconds = 2.0

/// Runs `body` with a deadline. At the deadline `onTimeout` runs (it should unblock the
/// work: shut sockets, stop servers); the work then gets `grace` seconds to return.
/// If it still has not, it is abandoned — its thread may leak, but the run goes on.
public func withDeadline<T: Sendable>(
    seconds: Double, grace: Double = cellGraceSeconds, onTimeout: @escaping @Sendable () -> Void,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let race = Race<T>()
    let work = Task { race.finish(with: await Result(asyncCatching: { try await body() })) }
    let timer = Task {
        try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
        guard !Task.isCancelled, !race.isFinished else { return }
        onTimeout()
        try? await Task.sleep(nanoseconds: UInt64(grace * 1e9))
        race.finish(with: .failure(DeadlineExceeded(seconds: seconds)))
    }
    let result = await race.value()
    timer.cancel()
    if case .failure(let e) = result, e is DeadlineExceeded { work.cancel() }
    return try result.get()
}

/// The first result wins; later ones are ignored.
private final class Race<T: Sendable>: Sendable {
    private let state = Mutex<(result: Result<T, any Error>?, waiter: CheckedContinuation<Result<T, any Error>, Never>?)>((nil, nil))

    var isFinished: Bool { state.withLock { $0.result != nil } }

    func finish(with r: Result<T, any Error>) {
        let waiter = state.withLock { s -> CheckedContinuation<Result<T, any Error>, Never>? in
            guard s.result == nil else { return nil }
            s.result = r
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(returning: r)
    }

    func value() async -> Result<T, any Error> {
        await withCheckedContinuation { c in
            let r = state.withLock { s -> Result<T, any Error>? in
                if s.result == nil { s.waiter = c }
                return s.result
            }
            if let r { c.resume(returning: r) }
        }
    }
}

extension Result where Failure == any Error {
    init(asyncCatching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
