/// How a client comes back to its server: the saved session it resumes (`resumption`,
/// `zeroRTT`) and, with `reconnect`, the current attempt's slot.
struct ClientResumption {
    /// The session to resume and where the priming connection saves it (`resumption`); nil = off.
    let store: QUICResumptionStore?
    /// The priming connection's set-up time, for `extra.quic` (set by whoever primed `store`).
    var primingNanos: UInt64?
    /// `reconnect`: the end of the current attempt's slot (`MonotonicClock`); nil = none.
    var attemptDeadline: UInt64?
}
