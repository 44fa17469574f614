import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchWorkloads

/// What went over the client's control stream that the measurement reads: the PONGs'
/// arrival times, the loaded probes sent, and the server's REPORT, SERIES and RESUMED
/// (`note`, for every control frame from the server). Kept over a reconnect's new
/// connections; `reconnect` clears `resumedAnswer` before each attempt.
struct ControlStreamLog {
    /// The PONGs by sequence number, when each arrived (the early PING's is not kept).
    var pongs: [UInt64: UInt64] = [:]
    /// The loaded probes sent during the bulk phase: sequence numbers and send times.
    var loadedSent: [(seq: UInt64, at: UInt64)] = []
    /// When the first PONG of the connection arrived (the early PING's, else probe 0's).
    var firstPongAt: UInt64?
    private(set) var report: ReportBody?
    /// The server's bulk series (SERIES, before REPORT); nil when it sent none.
    private(set) var series: BulkSeries?
    /// `reconnect`: the server's RESUMED on a re-made connection (nil until it arrives).
    var resumedAnswer: ResumedBody?
    /// The receiving app (`CellContext.appLoop`): each PONG is timed when it takes it.
    var app: AppReceiveLoop?

    /// Takes in one control frame from the server; throws for one a server never sends.
    mutating func note(_ frame: ControlFrame) throws {
        switch frame {
        case .pong(let seq):
            let now = MonotonicClock.now()
            if firstPongAt == nil { firstPongAt = now }
            // The early PING is not an idle probe: kept out of `pongs`, which counts those.
            if seq != QUICClient.earlyProbeSeq { pongs[seq] = app == nil ? now : app!.take(arrivedAt: now) }
        case .report(let r): report = r
        case .series(let s):
            guard report == nil else { throw FramingError(description: "SERIES after REPORT") }
            series = s
        case .resumed(let r):
            guard resumedAnswer == nil else { throw FramingError(description: "second RESUMED") }
            resumedAnswer = r
        case .ping, .done, .hello, .probeHello, .resume, .request, .frame, .framePull, .pull, .flow:
            throw FramingError(description: "server sent a client-only frame (\(frame))")
        case .frameArrivals: throw FramingError(description: "FRAME_ARRIVALS on the control stream")
        case .flowReport: throw FramingError(description: "FLOW_REPORT on the control stream")
        }
    }
}
