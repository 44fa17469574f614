import PeerBenchJSON
import PeerBenchPlugin

/// One `samples.jsonl` line as the analysis reads it: the record it joins, the RTT
/// probes and the bulk series, read from the line's tokens like `RecordLine` (report
/// folds 200 000 of them; decoding each as a whole `CellSamples` was a quarter of its time).
public struct SamplesLine: Sendable {
    public let key: RecordKey
    /// `key` as 128 bits (`RecordKey.Digest`), made on the thread that reads the line.
    public let digest: RecordKey.Digest
    /// Every answered RTT probe before the bulk phase, nanoseconds.
    public let rttNanos: [UInt64]
    /// The bulk series' interval and bytes per interval; nil without one.
    public let bulkSeries: (intervalNanos: UInt64, bytes: [Int])?

    /// Why a line is not a samples line of this schema, naming the JSON path.
    public struct Problem: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    public init(_ bytes: ArraySlice<UInt8>) throws(Problem) {
        let tape: JSONTape
        do { tape = try JSONTape(parsing: bytes) } catch { throw Problem(description: error.description) }
        let r = tape.root
        guard r["schema"]?.string == CellSamples.schema else {
            throw Problem(description: "$.schema: not \(CellSamples.schema)")
        }
        guard let run = r["run_id"]?.string, let cell = r["cell_id"]?.string, let rep = r["repetition"]?.int else {
            throw Problem(description: "$.run_id, $.cell_id and $.repetition must be two strings and an integer")
        }
        key = RecordKey(runID: run, cellID: cell, repetition: rep)
        digest = key.digest
        rttNanos = try Self.integers(r["rtt_ns"], "$.rtt_ns").map { UInt64($0) }
        if let b = r["bulk_series"], !b.isNull {
            guard let interval = b["interval_ns"]?.int, interval > 0 else {
                throw Problem(description: "$.bulk_series.interval_ns: expected a positive integer")
            }
            bulkSeries = (UInt64(interval), try Self.integers(b["bytes"], "$.bulk_series.bytes"))
        } else {
            bulkSeries = nil
        }
    }

    /// An array of integers of at least 0.
    static func integers(_ node: JSONTape.Node?, _ path: String) throws(Problem) -> [Int] {
        guard let node, node.kind == .array else { throw Problem(description: "\(path): expected an array") }
        var out: [Int] = []
        for e in node.elements {
            guard let v = e.int, v >= 0 else { throw Problem(description: "\(path): expected integers of at least 0") }
            out.append(v)
        }
        return out
    }
}
