import PeerBenchCore

/// One line per finished cell on standard error: what ran, how it ended, the headline figures.
struct ProgressPrinter: RunObserver {
    func cellStarted(index: Int, total: Int, cell: Cell) {}

    func cellFinished(index: Int, total: Int, cell: Cell, record: Record) {
        let width = String(total).count
        let n = String(index + 1).leftPadded(to: width)
        var line = "[\(n)/\(total)] \(cell.summary): \(record.status.rawValue)"
        if let t = record.throughputMbps { line += "  \(Format.number(t, digits: 1)) Mbit/s" }
        if let m = record.measurement, let rtt = RTTSummary(nanoseconds: m.rttNanos) {
            line += "  RTT p50 \(Format.number(rtt.p50, digits: 3)) ms"
        }
        if let d = record.measurement?.delivery, d.lossRatio > 0 { line += "  loss \(Format.number(d.lossRatio * 100, digits: 2)) %" }
        if let e = record.error { line += "  (\(e))" }
        Terminal.err(line)
    }
}

extension String {
    func leftPadded(to width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
