import PeerBenchPlugin
import PeerBenchWorkloads

/// The server's receiving app (`CellContext.appLoop`): it takes each bulk message and
/// PING one receive cost after the one before, and answers a PING only once it took it:
/// until then its PONG waits here. Without an app loop everything is taken on arrival.
struct ReceivingApp {
    private var loop: AppReceiveLoop?
    private var pendingPongs: [(at: UInt64, seq: UInt64, stream: Int64)] = []

    init(_ appLoop: AppLoop) { loop = AppReceiveLoop(appLoop) }

    /// When the app takes a message that arrived at `arrival`.
    mutating func taken(arrivedAt arrival: UInt64) -> UInt64 {
        guard loop != nil else { return arrival }
        return loop!.take(arrivedAt: arrival)
    }

    /// A PING `seq` on `stream` arrived at `now`: true when its PONG goes at once, else it waits.
    mutating func ping(_ seq: UInt64, on stream: Int64, now: UInt64) -> Bool {
        let at = taken(arrivedAt: now)
        guard at > now else { return true }
        pendingPongs.append((at, seq, stream))
        return false
    }

    /// When the next PONG the app still owes is due; nil when none.
    var nextPongDue: UInt64? { pendingPongs.first?.at }

    /// The PONGs the app has taken by `now` (their times only grow), oldest first.
    mutating func duePongs(now: UInt64) -> [(seq: UInt64, stream: Int64)] {
        var due: [(seq: UInt64, stream: Int64)] = []
        while let p = pendingPongs.first, p.at <= now {
            pendingPongs.removeFirst()
            due.append((p.seq, p.stream))
        }
        return due
    }
}
