import PeerBenchJSON
import PeerBenchPlugin

// compare's JSON (docs/COMPARE.md): pretty-printed, keys sorted, so the same input gives
// the same bytes. Scenarios are written straight into the stream writer: 200 000 records'
// comparison is text written once, so it skips the tree `JSONCoding.encode` would build;
// the members below are in sorted key order.
extension ComparisonDocument {
    /// The whole document's text (report's comparison.json): what `JSONStream` writes
    /// piece by piece for `compare --format json`.
    public func jsonText() throws -> String {
        var stream = JSONStream(alpha: alpha)
        stream.floor = measurementFloor
        stream.notes = notes
        var out: [UInt8] = []
        for s in scenarios { out += try stream.scenario(JSONStream.render(s)) }
        out += try stream.end(warnings: warnings)
        return String(decoding: out, as: UTF8.self)
    }

    /// The `peerbench.compare/1` document written piece by piece, one scenario at a time
    /// (keys sorted: alpha, measurement_floor, notes, scenarios, schema, warnings), so
    /// memory holds one scenario's text, not the document's.
    public struct JSONStream {
        public var alpha: Double
        /// The runs' floor, known before the first scenario.
        public var floor: ComparisonFloor?
        /// The runs' notes, known before the first scenario.
        public var notes: [RunNote]?
        private var writer = JSONStreamWriter(sortedKeys: true)
        private var started = false

        public init(alpha: Double) { self.alpha = alpha }

        /// The keys before `scenarios`, once.
        private mutating func open() throws {
            guard !started else { return }
            started = true
            writer.openObject()
            writer.write("alpha", number: alpha)
            writer.write("measurement_floor", try floor.map(JSONCoding.encode) ?? .null)
            writer.write("notes", try notes.map(JSONCoding.encode) ?? .null)
            writer.openArray("scenarios")
        }

        /// A scenario's text, made on any thread: indented for its place in the array.
        public static func render(_ s: Scenario) -> [UInt8] {
            var w = JSONStreamWriter(sortedKeys: true, base: scenarioLevel)
            // A pair's object is some 400 bytes, a transport's some 170 per metric.
            w.reserveCapacity(512 * (s.pairs.count + (s.withinRun?.count ?? 0)) + 2048 * s.transports.count + 512)
            s.write(to: &w)
            return w.take()
        }

        /// Document, scenarios array.
        static let scenarioLevel = 2

        /// The opening (before the first scenario) and the scenario's text (`render`).
        public mutating func scenario(_ text: [UInt8]) throws -> [UInt8] {
            try open()
            assert(writer.depth == Self.scenarioLevel)
            writer.write(nil, text: text)
            return writer.take()
        }

        /// The closing, with the warnings (known only once every scenario is built).
        public mutating func end(warnings: [String]) throws -> [UInt8] {
            try open()
            writer.close("]")
            writer.write("schema", string: ComparisonDocument(alpha: alpha, scenarios: []).schema)
            writer.write("warnings", .array(warnings.map(JSONValue.string)))
            writer.close("}")
            return writer.take()
        }
    }
}

extension ComparisonDocument.Scenario {
    /// Writes the scenario as an element of the enclosing array (or as the whole fragment).
    public func write(to w: inout JSONStreamWriter) {
        w.openObject()
        w.write("distance_label", string: distanceLabel)
        w.write("environment", string: environment)
        w.openArray("pairs")
        for p in pairs { p.write(to: &w) }
        w.close("]")
        w.write("payload", string: payload)
        w.openArray("transports")
        for t in transports { t.write(to: &w) }
        w.close("]")
        if let withinRun {
            w.openArray("within_run")
            for p in withinRun { p.write(to: &w) }
            w.close("]")
        } else {
            w.write("within_run", .null)
        }
        w.close("}")
    }
}

extension ComparisonDocument.Transport {
    func write(to w: inout JSONStreamWriter) {
        w.openObject()
        w.write("label", string: label)
        w.openObject("metrics")
        for key in metrics.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            metrics[key]!.write(key, to: &w)
        }
        w.close("}")
        w.close("}")
    }
}

extension ComparisonDocument.MetricSummary {
    func write(_ key: String, to w: inout JSONStreamWriter) {
        w.openObject(key)
        w.write("ci_high", number: ciHigh)
        w.write("ci_low", number: ciLow)
        w.write("median", number: median)
        w.write("n", number: Double(n))
        w.close("}")
    }
}

extension ComparisonDocument.Pair {
    func write(to w: inout JSONStreamWriter) {
        w.openObject()
        w.write("a", string: a)
        w.write("b", string: b)
        w.write("cliffs_delta", number: cliffsDelta)
        w.write("floor_ms", number: floorMs)
        w.write("metric", string: metric)
        w.write("p_adjusted", number: pAdjusted)
        w.write("p_value", number: pValue)
        w.write("reason", string: reason)
        w.write("shift", number: shift)
        w.write("shift_ci_high", number: shiftCIHigh)
        w.write("shift_ci_low", number: shiftCILow)
        w.write("verdict", string: verdict.rawValue)
        w.close("}")
    }
}
