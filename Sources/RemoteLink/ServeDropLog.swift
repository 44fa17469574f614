import PeerBenchPlugin
import PeerBenchSystem
import Synchronization

/// serve's log of connections it refused or dropped before a session (issue 24):
/// rate-limited, so a flood costs a line every `interval` seconds, not one per
/// connection. The first drop of an interval is logged at once; the rest are counted
/// and summarised (how many, from how many addresses, the busiest one) with the next
/// drop after the interval has passed.
final class ServeDropLog: Sendable {
    let interval: UInt64
    private let log: ServeLog
    private struct Window {
        var started: UInt64 = 0
        var open = false
        var suppressed = 0
        var byAddress: [String: Int] = [:]
    }
    private let window = Mutex(Window())

    init(log: ServeLog, intervalSeconds: Double = 10) {
        self.log = log
        interval = UInt64(intervalSeconds * 1e9)
    }

    /// One connection from `address` refused or dropped for `reason`.
    func dropped(_ address: String, _ reason: String, now: UInt64 = MonotonicClock.now()) {
        let lines = window.withLock { w -> [String] in
            if w.open && now &- w.started < interval {
                w.suppressed += 1
                w.byAddress[address, default: 0] += 1
                return []
            }
            var out: [String] = []
            if w.suppressed > 0, let busiest = w.byAddress.max(by: { $0.value < $1.value }) {
                out.append(
                    "\(w.suppressed) more connection\(w.suppressed == 1 ? "" : "s") refused or dropped in the last \(seconds(Double(now &- w.started) / 1e9)) s from \(w.byAddress.count) address\(w.byAddress.count == 1 ? "" : "es") (most from \(busiest.key): \(busiest.value))"
                )
            }
            w = Window(started: now, open: true)
            out.append("connection from \(address): \(reason)")
            return out
        }
        for line in lines { log.line(line) }
    }
}
