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
        // The thread's CPU time goes to the awaiting task's account (a cell's side).
        let account = CPUAccount.current
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let thread = Thread {
                // Back in the creator's namespace before waking the awaiting task
                // (`NetworkNamespace.run` says why).
                continuation.resume(with: CPUAccount.charge(account) { Result { try NetworkNamespace.run(in: namespace, body) } })
            }
            thread.name = name
            thread.stackSize = 4 << 20
            thread.start()
        }
    }
}
