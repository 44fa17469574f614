import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The CPU time (user + system) one side of a cell spent: the record's `cpu_seconds`.
///
/// Each side of a cell gets an account (the runner binds it with `$current` around the
/// plugin's `startServer` and `runClient`). Every thread that does the side's work is
/// charged from its start to its end, on the kernel's per-thread CPU clock: the threads
/// `Endpoint.run` starts, and the helper threads they start with `CPUAccount.charge`
/// (probe readers, a separate flow). Work on Swift's cooperative pool is not charged:
/// plugins do their socket work on threads of their own.
public final class CPUAccount: Sendable {
    private let nanos = Atomic<UInt64>(0)
    /// Threads started with `startThread` for this account whose charge is not added yet.
    private let unsettled = Atomic<Int>(0)

    public init() {}

    /// The account the current task's (or, inside `charge`, thread's) work goes to.
    @TaskLocal public static var current: CPUAccount?

    /// CPU nanoseconds charged so far.
    public var nanoseconds: UInt64 { nanos.load(ordering: .relaxed) }

    public var seconds: Double { Double(nanoseconds) / 1e9 }

    /// `seconds` once every thread `startThread` started for this account has been
    /// charged, waiting at most `limit` seconds for them. A helper thread tells its
    /// waiter it is done from inside its body, before its CPU time is added: read
    /// straight away, on a busy machine the figure missed whole threads (a helper's
    /// 0.2 s of a 0.3 s cell). A thread still running after `limit` is left out.
    public func settledSeconds(waitingAtMost limit: Double = 1) async -> Double {
        let deadline = ContinuousClock.now + .milliseconds(Int(limit * 1000))
        while unsettled.load(ordering: .acquiring) > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(1))
        }
        return seconds
    }

    /// Runs `body`, the whole life of a fresh thread, charging the thread's CPU time to
    /// `account` and making it `current` for threads the body starts. nil charges nothing.
    public static func charge<T>(_ account: CPUAccount?, _ body: () throws -> T) rethrows -> T {
        guard let account else { return try body() }
        let start = threadNanos()
        defer { account.nanos.add(threadNanos() &- start, ordering: .releasing) }
        return try $current.withValue(account) { try body() }
    }

    /// This thread's CPU time so far (CLOCK_THREAD_CPUTIME_ID), nanoseconds.
    static func threadNanos() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}

extension CPUAccount {
    /// Starts a thread named `name` whose CPU time goes to the current account: how a
    /// cell's code starts a helper thread (a probe reader, a second flow), so that the
    /// record's `cpu_seconds` counts it.
    public static func startThread(_ name: String, stackSize: Int = 4 << 20, _ body: @escaping @Sendable () -> Void) {
        let account = current
        account?.unsettled.add(1, ordering: .relaxed)
        let thread = Thread {
            charge(account, body)
            account?.unsettled.subtract(1, ordering: .releasing)
        }
        thread.name = name
        thread.stackSize = stackSize
        thread.start()
    }
}
