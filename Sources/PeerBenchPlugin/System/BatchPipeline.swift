import Dispatch

/// Batches made on other threads while the caller takes the previous one: compare and
/// report decode a journal's next lines (or build the next scenarios) on every core while
/// the calling thread merges (or writes) the last ones, so neither side waits for the other.
public enum BatchPipeline {
    /// Calls `produce(0)`, `produce(1)`, ... one at a time, in order, each on another
    /// thread while `consume` takes the batch before it, until `produce` returns nil.
    /// `consume` runs on the calling thread, in order. When it throws, the batch being
    /// made is awaited and dropped, and nothing more is made.
    public static func run<Batch: Sendable, Failure: Error>(produce: @Sendable (Int) -> Batch?,
                                                            consume: (Batch) throws(Failure) -> Void) throws(Failure) {
        try withoutActuallyEscaping(produce) { (produce) throws(Failure) in
            var next = produce(0)
            var index = 1
            while let batch = next {
                // The one result slot, written by the producer and read after `wait`.
                nonisolated(unsafe) var following: Batch?
                let group = DispatchGroup()
                let k = index
                DispatchQueue.global().async(group: group) { following = produce(k) }
                var failure: Failure?
                do throws(Failure) { try consume(batch) } catch { failure = error }
                group.wait()
                if let failure { throw failure }
                next = following
                index += 1
            }
        }
    }
}
