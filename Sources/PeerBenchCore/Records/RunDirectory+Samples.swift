import Foundation
import PeerBenchJSON
import PeerBenchPlugin

extension RunDirectory {
    /// The `CellSamples` of a record, from its measurement (empty lists and nulls for a
    /// cell that measured nothing), as one JSON line.
    static func samplesLine(of record: Record) -> [UInt8] {
        let m = record.measurement
        let samples = CellSamples(
            runID: record.runID, cellID: record.cellID, repetition: record.repetition,
            rttNanos: m?.rttNanos ?? [], rttLoadedNanos: m?.rttLoadedNanos, bulkSeries: m?.bulkSeries,
            ranging: m?.ranging, transactionNanos: m?.transactionNanos, frameDelayNanos: m?.frames?.delayNanos)
        // Only a non-finite Double could fail to encode; an empty line is never written.
        let text = (try? JSONCoding.encode(samples).text(.compact, sortedKeys: true)) ?? "{}"
        return Array(text.utf8) + [UInt8(ascii: "\n")]
    }

    /// The samples lines of this folder, in order (complete lines that decode only).
    public func readSamples() -> [CellSamples] {
        guard let data = FileManager.default.contents(atPath: samplesPath) else { return [] }
        return data.split(separator: UInt8(ascii: "\n")).compactMap { try? JSONCoding.decode(CellSamples.self, from: $0) }
    }
}
