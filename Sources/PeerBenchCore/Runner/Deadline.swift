import Foundation

/// Thrown when a cell's work does not finish by its deadline.
public struct DeadlineExceeded: Error, CustomStringConvertible {
    public var seconds: Double
    public var description: String { "cell did not finish within \(JSONValue.format(seconds)) s" }
}

/// Runs `body` with a deadline. At the deadline `onTimeout` runs (it should unblock the
/// work: shut sockets, stop servers); the work then gets `grace` seconds to return.
/// If it still has not, it is abandoned — its thread may leak, but the run goes on.
func withDeadline<T: Sendable>(
    seconds: Double, grace: Double = 2, onTimeout: @escaping @Sendable () -> Void,
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
private final class Race<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<T, any Error>?
    private var waiter: CheckedContinuation<Result<T, any Error>, Never>?

    var isFinished: Bool { lock.withLock { result != nil } }

    func finish(with r: Result<T, any Error>) {
        let w = lock.withLock { () -> CheckedContinuation<Result<T, any Error>, Never>? in
            guard result == nil else { return nil }
            result = r
            defer { waiter = nil }
            return waiter
        }
        w?.resume(returning: r)
    }

    func value() async -> Result<T, any Error> {
        await withCheckedContinuation { c in
            let r = lock.withLock { () -> Result<T, any Error>? in
                if result == nil { waiter = c }
                return result
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
