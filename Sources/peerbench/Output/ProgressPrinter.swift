import Foundation
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem
import Synchronization

/// Progress on standard error. On a terminal: finished cells scroll above a live line
/// (cells done/total, failures, the current cell and its elapsed time, ETA), redrawn
/// every second. Otherwise: one plain log line per finished cell, with the ETA.
final class ProgressPrinter: RunObserver, Sendable {
    private struct State {
        var estimate: ProgressEstimate
        var current: (cell: Cell, index: Int, started: UInt64)?
        var stopped = false
    }
    /// Also held while writing to standard error, so the live line is never torn.
    private let state: Mutex<State>
    private let live: Bool
    private let verbose: Bool
    /// Where the live line is redrawn every second.
    private let ticks = DispatchQueue(label: "peerbench.progress")
    private let t0 = MonotonicClock.now()
    /// Cells recorded before this session (on resume), so counters show the whole run.
    private let offset: Int

    init(estimates: [Double], alreadyRecorded: Int = 0, live: Bool, verbose: Bool) {
        state = Mutex(State(estimate: ProgressEstimate(estimates: estimates)))
        offset = alreadyRecorded
        self.live = live
        self.verbose = verbose
        if live { tick() }
    }

    /// Redraws the live line a second from now, and so on until `stop()`.
    private func tick() {
        ticks.asyncAfter(deadline: .now() + 1) { [weak self] in
            guard let self, !self.state.withLock({ $0.stopped }) else { return }
            self.redraw()
            self.tick()
        }
    }

    func stop() {
        state.withLock { s in
            s.stopped = true
            if live { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) }
        }
    }

    func cellStarted(index: Int, total: Int, cell: Cell) {
        state.withLock { $0.current = (cell, index, MonotonicClock.now()) }
        if live { redraw() } else if verbose { Terminal.err("[\(counter(index, total))] \(cell.summary): started") }
    }

    func cellFinished(index: Int, total: Int, cell: Cell, record: Record) {
        let line = state.withLock { s -> String in
            // Cells that shared the link (`transportsAtOnce`) ran in the same wall time:
            // each counts its share, as `RunPlan.estimates` gives each its share.
            let sharers = Double((record.sharedLinkWith?.count ?? 0) + 1)
            s.estimate.finished(seconds: record.totalSeconds / sharers, ok: record.status == .ok)
            s.current = nil
            var line = "[\(counter(index, total))] " + ProgressPrinter.describe(cell: cell, record: record)
            if !live, let eta = s.estimate.remainingSeconds, s.estimate.done < s.estimate.total { line += "  · ETA \(Format.duration(eta))" }
            return line
        }
        emit(line)
    }

    func cellInterrupted(index: Int, total: Int, cell: Cell) {
        state.withLock { $0.current = nil }
        emit("[\(counter(index, total))] \(cell.summary): interrupted (not recorded; runs again on resume)")
    }

    private func counter(_ index: Int, _ total: Int) -> String {
        String(offset + index + 1).leftPadded(to: String(offset + total).count) + "/\(offset + total)"
    }

    /// A finished-cell line; on a terminal it replaces the live line, which is redrawn below it.
    private func emit(_ line: String) {
        if live {
            state.withLock { _ in FileHandle.standardError.write(Data(("\r\u{1B}[2K" + line + "\n").utf8)) }
            redraw()
        } else {
            Terminal.err(line)
        }
    }

    private func redraw() {
        state.withLock { s in
            guard live, !s.stopped else { return }
            let estimate = s.estimate
            var parts = ["\(offset + estimate.done)/\(offset + estimate.total) done"]
            if estimate.failures > 0 { parts.append("\(estimate.failures) not ok") }
            if let c = s.current {
                parts.append("now: \(c.cell.summary) (\(Format.seconds(Double(MonotonicClock.elapsed(since: c.started)) / 1e9)))")
            }
            if let eta = estimate.remainingSeconds, estimate.done < estimate.total { parts.append("ETA \(Format.duration(eta))") }
            parts.append("elapsed \(Format.duration(Double(MonotonicClock.elapsed(since: t0)) / 1e9))")
            var text = parts.joined(separator: " · ")
            let width = ProgressPrinter.terminalWidth
            if text.count > width - 1 { text = String(text.prefix(width - 2)) + "…" }
            FileHandle.standardError.write(Data(("\r\u{1B}[2K" + text).utf8))
        }
    }

    static var terminalWidth: Int {
        var w = winsize()
        return ioctl(2, UInt(TIOCGWINSZ), &w) == 0 && w.ws_col > 20 ? Int(w.ws_col) : 100
    }

    /// What ran, how it ended, the headline figures.
    static func describe(cell: Cell, record: Record) -> String {
        var line = "\(cell.summary): \(record.status.rawValue)"
        if let t = record.throughputMbps { line += "  \(Format.number(t, digits: 1)) Mbit/s" }
        if let m = record.measurement, let rtt = RTTSummary(nanoseconds: m.rttNanos) {
            line += "  RTT p50 \(Format.number(rtt.p50, digits: 3)) ms"
        }
        if let d = record.measurement?.delivery, d.lossRatio > 0 { line += "  loss \(Format.number(d.lossRatio * 100, digits: 2)) %" }
        if let e = record.error { line += "  (\(e))" }
        return line
    }
}

extension String {
    func leftPadded(to width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
