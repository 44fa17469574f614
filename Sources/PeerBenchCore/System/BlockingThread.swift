import Foundation

/// Runs blocking work on a dedicated OS thread and awaits its result.
///
/// Socket loops must never block Swift's cooperative pool (two threads on a
/// two-core machine): a blocked server and client would starve each other.
/// A fresh thread can also enter a network namespace without affecting any other.
public enum BlockingThread {
    public static func run<T: Sendable>(
        name: String,
        namespace: NetworkNamespace? = nil,
        _ body: @escaping @Sendable () throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let thread = Thread {
                continuation.resume(with: Result {
                    if let namespace { try namespace.enterOnCurrentThread() }
                    return try body()
                })
            }
            thread.name = name
            thread.stackSize = 4 << 20
            thread.start()
        }
    }
}
