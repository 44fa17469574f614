import Dispatch
import Foundation

/// `map` on every core, the results in input order: what lets compare, report and merge
/// read a journal's lines (each decoded on its own) and build compare's scenarios at
/// the speed of the machine, not of one core. `transform` must not touch shared state.
public enum OrderedParallelMap {
    /// Below this many inputs per core a second thread costs more than it saves.
    static let minimumPerWorker = 32

    public static func map<T: Sendable, R: Sendable>(_ inputs: [T], _ transform: @Sendable (T) -> R) -> [R] {
        let n = inputs.count
        let workers = min(ProcessInfo.processInfo.activeProcessorCount, n / minimumPerWorker)
        guard workers > 1 else { return inputs.map(transform) }
        return [R](unsafeUninitializedCapacity: n) { buffer, initialized in
            // Each worker writes its own slice of the results: no two touch one element.
            nonisolated(unsafe) let output = buffer.baseAddress!
            inputs.withUnsafeBufferPointer { input in
                nonisolated(unsafe) let input = input
                // More pieces than cores: a core slowed by another process does not hold up the batch.
                let pieces = workers * 4
                DispatchQueue.concurrentPerform(iterations: pieces) { w in
                    for i in n * w / pieces..<n * (w + 1) / pieces { (output + i).initialize(to: transform(input[i])) }
                }
            }
            initialized = n
        }
    }
}
