import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchTestbed

/// Turns what a scenario cell saw into the record's `scenario` object
/// (docs/RECORDS.md, "scenario"): the receiver's series for the stall, the emulator's
/// delivery series (on the link clock, where the event's times are) for everything
/// measured around the event, and when the client failed for the detection time.
public struct ScenarioFigures: Sendable {
    /// The scenario as resolved for the cell's link.
    public var event: ScenarioEvent
    /// Seconds of throughput before the event that `recover90_ms` compares against.
    static let beforeSeconds = 1.0
    /// Width of the window whose throughput must be back to 90 % (`recover90_ms`).
    static let recoveryWindowSeconds = 0.5

    public init(event: ScenarioEvent) { self.event = event }

    /// How the cell ended, as far as the figures care.
    public struct Ending: Sendable {
        /// The client ran to the end (its measurement came back).
        public var completed: Bool
        /// When the client failed or was stopped, seconds on the link clock; nil if it completed.
        public var failedAtSeconds: Double?
        /// The connections the client re-made (`reconnect`), on the link clock; nil
        /// when the transport does not reconnect.
        public var reconnects: [Reconnect]?
        /// The measurement's `resumed` and `delivery.duplicated` (with `reconnect`).
        public var resumed: Bool?
        public var duplicates: Int?
        /// The measurement's connection migrations (quic's `migrate`); nil when the option is off.
        public var migrations: [MigrationEvent]?
        public init(
            completed: Bool, failedAtSeconds: Double?, reconnects: [Reconnect]? = nil, resumed: Bool? = nil,
            duplicates: Int? = nil, migrations: [MigrationEvent]? = nil
        ) {
            self.completed = completed
            self.failedAtSeconds = failedAtSeconds
            self.reconnects = reconnects
            self.resumed = resumed
            self.duplicates = duplicates
            self.migrations = migrations
        }
    }

    /// A `ReconnectEvent` on the link clock (seconds).
    public struct Reconnect: Sendable {
        public var lostAtSeconds: Double
        public var resumedAtSeconds: Double
        public var resentBytes: Int
        public init(lostAtSeconds: Double, resumedAtSeconds: Double, resentBytes: Int) {
            self.lostAtSeconds = lostAtSeconds
            self.resumedAtSeconds = resumedAtSeconds
            self.resentBytes = resentBytes
        }
    }

    /// The record's `scenario` object.
    public func figures(receiver: BulkSeries?, delivery: LinkDeliverySeries?, ending: Ending) -> Record.Scenario {
        var s = Record.Scenario(name: event.name, kind: event.kind)
        s.stallMs = receiver.flatMap(Self.longestGapMs)
        let bin = Double(LinkDeliverySeries.binNanos) / 1e9
        let up = delivery?.up
        if let up, let start = event.startSeconds {
            let first = Int((start / bin).rounded())
            let last = event.endSeconds.map { Int(($0 / bin).rounded()) } ?? up.count
            s.bytesDuringEvent = first < up.count ? up[first..<max(first, min(last, up.count))].reduce(0, +) : 0
        }
        if let up, let end = event.endSeconds, ending.completed || (ending.failedAtSeconds ?? 0) > end {
            let endBin = Int((end / bin).rounded())
            if let i = up.indices.first(where: { $0 >= endBin && up[$0] > 0 }) { s.recoverMs = Self.ms(Double(i - endBin) * bin) }
            s.recover90Ms = recovery90(up, endBin: endBin, bin: bin)
        }
        s.resumed = ending.resumed
        if let reconnects = ending.reconnects { reconnectFigures(reconnects, ending: ending, into: &s) }
        if let migrations = ending.migrations {
            // A migration keeps the connection: it is not a reconnect, and is timed on the
            // client's own clock (no link clock needed: from moving to the first ACK after).
            s.migrations = migrations.count
            s.migrationMs = migrations.first.flatMap { e in e.backAtNanos.map { Self.ms(Double($0 &- e.migratedAtNanos) / 1e9) } }
        }
        if ending.completed {
            s.survived = true
            s.reconnects = ending.reconnects?.count ?? 0
        } else if let failed = ending.failedAtSeconds, let start = event.deadStartSeconds ?? event.startSeconds, failed >= start {
            // The connection died during or after the event: the transport gave up on its peer.
            s.survived = false
            s.reconnects = 0
            s.detectMs = Self.ms(failed - start)
        }
        return s
    }

    /// `reconnects`, `resent_bytes`, `duplicates`; `reconnect_ms` from the link's return
    /// (`linkBackSeconds`) to the first re-made connection resumed after it; `detect_ms`
    /// from the dead stretch's start to the first loss the client noticed in it.
    func reconnectFigures(_ reconnects: [Reconnect], ending: Ending, into s: inout Record.Scenario) {
        s.reconnects = reconnects.count
        s.resentBytes = reconnects.reduce(0) { $0 + $1.resentBytes }
        s.duplicates = ending.duplicates
        if let back = linkBackSeconds, let first = reconnects.first(where: { $0.resumedAtSeconds >= back }) {
            s.reconnectMs = Self.ms(first.resumedAtSeconds - back)
        } else if let last = reconnects.last {
            // Not measurable: say why, in the record (`reconnect_ms_reason`).
            func at(_ t: Double) -> String { JSONValue.format((t * 1_000).rounded() / 1_000) }
            if let back = linkBackSeconds, let deadStart = event.deadStartSeconds, last.resumedAtSeconds < deadStart {
                s.reconnectMsReason =
                    "every re-made connection was resumed before the dead stretch began at \(at(deadStart)) s on the link clock "
                    + "(the last at \(at(last.resumedAtSeconds)) s), and the last one outlived it to the link's return at \(at(back)) s"
            } else if let back = linkBackSeconds {
                s.reconnectMsReason =
                    "every re-made connection was resumed before the link's return at \(at(back)) s on the link clock "
                    + "(the last at \(at(last.resumedAtSeconds)) s): the link carried it while the scenario still counted it dead"
            } else {
                s.reconnectMsReason =
                    "the link does not return in this scenario (\(event.kind) without a return); the last re-made connection "
                    + "was resumed at \(at(last.resumedAtSeconds)) s on the link clock"
            }
        }
        if let start = event.deadStartSeconds ?? event.startSeconds, let lost = reconnects.first(where: { $0.lostAtSeconds >= start }) {
            s.detectMs = Self.ms(lost.lostAtSeconds - start)
        }
    }

    /// When the link is usable again: the end of its dead stretch when that comes before
    /// the event's end (a walk away and back: the median SNR back above MCS 0, while the
    /// walker is still on the way back), else the event's end (an outage's end is its
    /// dead stretch's end); nil when the link does not come back.
    var linkBackSeconds: Double? {
        guard let end = event.endSeconds else { return nil }
        guard let deadStart = event.deadStartSeconds, event.deadSeconds > 0 else { return end }
        return min(end, deadStart + event.deadSeconds)
    }

    /// Whether a cell that failed died the way its settings predict: the link was dead
    /// for at least the transport's dead-peer timeout, and the failure came after the
    /// dead stretch began. Such a cell is `ok` with its detection figures (docs/RECORDS.md).
    public func deathIsExpected(deadPeerTimeoutSeconds timeout: Double?, failedAtSeconds: Double?) -> Bool {
        guard let timeout, let failed = failedAtSeconds, let deadStart = event.deadStartSeconds, event.deadSeconds > 0 else { return false }
        return event.deadSeconds >= timeout && failed >= deadStart
    }

    /// Longest run of empty intervals between the first and the last arrival, ms; 0 when none.
    static func longestGapMs(_ series: BulkSeries) -> Double? {
        guard let first = series.bytes.firstIndex(where: { $0 > 0 }), let last = series.bytes.lastIndex(where: { $0 > 0 }) else { return nil }
        var longest = 0, run = 0
        for b in series.bytes[first...last] {
            run = b == 0 ? run + 1 : 0
            longest = max(longest, run)
        }
        return Self.ms(Double(longest) * Double(series.intervalNanos) / 1e9)
    }

    /// From the link's return until a `recoveryWindowSeconds` window carries 90 % of the
    /// rate of the `beforeSeconds` before the event, ms; nil without a "before" or if
    /// the rate never comes back.
    func recovery90(_ up: [Int], endBin: Int, bin: Double) -> Double? {
        guard let start = event.startSeconds else { return nil }
        let startBin = Int((start / bin).rounded())
        let beforeBins = Int((Self.beforeSeconds / bin).rounded())
        guard startBin >= beforeBins, startBin <= up.count else { return nil }
        let before = Double(up[(startBin - beforeBins)..<startBin].reduce(0, +)) / Double(beforeBins)
        guard before > 0 else { return nil }
        let window = Int((Self.recoveryWindowSeconds / bin).rounded())
        guard up.count >= endBin + window else { return nil }
        var sum = up[endBin..<(endBin + window)].reduce(0, +)
        var i = endBin
        while true {
            if Double(sum) / Double(window) >= 0.9 * before { return Self.ms(Double(i - endBin) * bin) }
            guard i + window < up.count else { return nil }
            sum += up[i + window] - up[i]
            i += 1
        }
    }

    static func ms(_ seconds: Double) -> Double { (seconds * 1e4).rounded() / 10 }
}
