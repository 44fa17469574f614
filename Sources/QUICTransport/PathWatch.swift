/// The client's judgement of its current path (`migrate`): dead once nothing has come
/// from the server for the policy's silence while data is in flight. A value type with
/// no I/O; `QUICClient.watchPath` feeds it each event-loop turn.
struct PathWatch {
    let policy: MigrationPolicy
    /// The last moment nothing was in flight (nothing was owed an acknowledgement), or
    /// the last migration: the silence cannot have started before it.
    private var quietAt: UInt64
    /// Migrations made so far (each doubles the next silence).
    private(set) var moves = 0

    init(policy: MigrationPolicy, now: UInt64) {
        self.policy = policy
        quietAt = now
    }

    /// What the connection says at `now`.
    struct Sample {
        var now: UInt64
        /// Unacknowledged bytes (ngtcp2's bytes_in_flight).
        var bytesInFlight: UInt64
        /// When the last datagram arrived from the server, or the handshake was confirmed,
        /// whichever is later. Not only acknowledgements of stream data: on a lossy path
        /// the contiguous acknowledged offset may wait for a retransmission while ACKs
        /// keep coming, and a path that brings ACKs is alive.
        var lastProgressAt: UInt64
        var smoothedRTT: UInt64
        var rttVariance: UInt64
    }

    /// When the current silence began (nil while nothing is owed).
    func silentSince(_ s: Sample) -> UInt64? {
        s.bytesInFlight == 0 ? nil : max(quietAt, s.lastProgressAt)
    }

    /// The moment the path counts as dead if nothing changes (nil: nothing in flight).
    func deadline(_ s: Sample) -> UInt64? {
        silentSince(s).map { $0 + policy.silenceNanos(smoothedRTT: s.smoothedRTT, rttVariance: s.rttVariance, moves: moves) }
    }

    /// True when the path is dead at `s.now`; notes an idle moment otherwise.
    mutating func isDead(_ s: Sample) -> Bool {
        guard let due = deadline(s) else {
            quietAt = s.now
            return false
        }
        return s.now >= due
    }

    /// The client failed to move and waits one more silence: start again from `now`.
    mutating func restart(at now: UInt64) { quietAt = now }

    /// The client moved at `now`: the next silence starts here and lasts twice as long.
    mutating func moved(at now: UInt64) {
        quietAt = now
        moves += 1
    }
}
