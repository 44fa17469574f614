import PeerBenchAnalysis
import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin

/// The text and markdown forms of `compare --measured` (docs/COMPARE.md, "Against field
/// measurements"); the JSON form is `MeasuredDocument` as `JSONCoding` writes it.
enum MeasuredRender {
    static func digits(_ unit: String) -> Int { unit == "ms" ? 2 : 1 }

    /// `median [q1, q3]`, or `-` without values.
    static func side(_ s: MeasuredDocument.Side, unit: String) -> String {
        guard let m = s.median, let q1 = s.q1, let q3 = s.q3 else { return "-" }
        let d = digits(unit)
        return "\(Format.number(m, digits: d)) [\(Format.number(q1, digits: d)), \(Format.number(q3, digits: d))]"
    }

    /// Two decimals, three below 0.1: a tenfold miss should still show its size.
    static func ratio(_ x: Double?) -> String { Format.number(x, digits: (x ?? 1) < 0.1 ? 3 : 2) }

    static func inside(_ b: Bool?) -> String { b.map { $0 ? "yes" : "no" } ?? "-" }

    /// Metres as the JSON writer prints numbers: `5 m`, not `5.00 m`.
    static func metres(_ m: Double?) -> String { m.map { JSONValue.number($0).compactText + " m" } ?? "-" }

    /// One table per metric, then the summary, the method, the notes and the warnings.
    static func text(_ doc: MeasuredDocument, markdown: Bool) -> String {
        var out: [String] = []
        for t in doc.tables {
            let heading = "\(t.title): measured \"\(t.measuredColumn)\" vs emulated \(t.emulatedKey)"
            out.append(markdown ? "### \(heading)\n" : heading)
            let keys: [String] =
                switch t.metric {
                case .rttMeanMs, .rttJitterMs: ["transport", "place"]
                case .transferMbps: ["transport", "place", "distance"]
                case .transferByPayloadMbps: ["transport", "count", "size"]
                }
            let rows = t.rows.map { r -> [String] in
                let key: [String] =
                    switch t.metric {
                    case .rttMeanMs, .rttJitterMs: [r.transport, r.place ?? "-"]
                    case .transferMbps: [r.transport, r.place ?? "-", metres(r.distanceM)]
                    case .transferByPayloadMbps: [r.transport, r.count.map(String.init) ?? "-", r.size.map { "\($0) B" } ?? "-"]
                    }
                return key + [
                    "\(r.measured.n)", side(r.measured, unit: t.unit), "\(r.emulated.n)" + (r.emulatedFromThroughput > 0 ? "*" : ""),
                    side(r.emulated, unit: t.unit), inside(r.inside), ratio(r.ratio),
                ]
            }
            out.append(
                CompareRender.grid(
                    keys + ["n meas", "measured median [q1, q3]", "n emu", "emulated median [q1, q3]", "inside", "emu/meas"],
                    rows, markdown: markdown))
            out.append("")
        }
        let summary = doc.tables.map { "\($0.metric.rawValue) \($0.inside) of \($0.compared) inside" }.joined(separator: "; ")
        let skipped = doc.measuredFiles.reduce(0) { $0 + $1.skippedRows }
        let read = doc.measuredFiles.reduce(0) { $0 + $1.tests }
        var footer = [
            "summary: \(summary)",
            "measured: \(read) test\(read == 1 ? "" : "s") read from \(doc.measuredFiles.count) file\(doc.measuredFiles.count == 1 ? "" : "s"), \(skipped) row\(skipped == 1 ? "" : "s") skipped",
            "inside: the emulated median lies in the measured [q1, q3]; quartiles by \(doc.quartileMethod); emu/meas: ratio of the medians"
                + (doc.tables.contains { $0.rows.contains { $0.emulatedFromThroughput > 0 } }
                    ? "; * some emulated values are throughput_mbps (see note)" : ""),
        ]
        footer += doc.notes.map { "note: " + $0 }
        footer += doc.warnings.map { "warning: " + $0 }
        out += markdown ? footer.map { $0.hasPrefix("warning: ") ? "- **warning:** " + $0.dropFirst(9) : "- " + $0 } : footer
        return out.joined(separator: "\n")
    }
}
