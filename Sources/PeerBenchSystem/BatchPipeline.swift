import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// Batches made on other threads while the caller takes the previous one: compare and
/// report decode a journal's next lines (or build the next scenarios) on every core while
/// the calling thread merges (or writes) the last ones, so neither side waits for the other.
public enum BatchPipeline {
    /// Calls `produce(0)`, `produce(1)`, ... one at a time, in order, each on another
    /// thread while `consume` takes the batch before it, until `produce` returns nil.
    /// `consume` runs on the calling thread, in order. When it throws, the batch being
    /// made is awaited and dropped, and nothing more is made.
    public static func run<Batch: Sendable, Failure: Error>(
        produce: @Sendable (Int) -> Batch?,
        consume: (Batch) throws(Failure) -> Void
    ) throws(Failure) {
        try withoutActuallyEscaping(produce) { (produce) throws(Failure) in
            var next = produce(0)
            var index = 1
            while let batch = next {
                // The one result slot, written by the producer and read after `wait`.
                nonisolated(unsafe) var following: Batch?
                let k = index
                // A thread of its own, not one of Dispatch's: a producer that spreads its
                // batch over the cores (`OrderedParallelMap`) from a pool thread holds one
                // of the pool's slots itself, and on two cores its batch then ran on one.
                let producer = JoinedThread { following = produce(k) }
                var failure: Failure?
                do throws(Failure) { try consume(batch) } catch { failure = error }
                producer.join()
                if let failure { throw failure }
                next = following
                index += 1
            }
        }
    }
}

/// A thread that runs one closure and is joined. Once joined, the closure and what it
/// captured are released, which `withoutActuallyEscaping` checks (a Foundation `Thread`
/// may still hold its closure when the work it signals is done).
private struct JoinedThread {
    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    private var handle = pthread_t()
    private var started = false

    init(_ body: @escaping () -> Void) {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        started =
            pthread_create(
                &handle, nil,
                { context in
                    Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
                    return nil
                }, context) == 0
        // No thread to be had (the process's limit): the work is done here instead.
        if !started { Unmanaged<Body>.fromOpaque(context).takeRetainedValue().run() }
    }

    func join() {
        if started { pthread_join(handle, nil) }
    }
}
