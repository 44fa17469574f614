import PeerBenchPlugin
import PeerBenchSystem

/// The keepalive's verdict (`keepAlive`): nothing from the server for its timeout.
/// Without `reconnect` it ends the cell, as before; with it the client resumes.
struct UDPPeerLost: Error, CustomStringConvertible {
    var description: String
}

/// `reconnect` for udp (docs/protocol/udp.md, "Reconnect"): UDP has no connection to
/// make again, so after the keepalive's verdict the client keeps asking the server
/// (RESUME, with the policy's backoff) until it answers where the DATA got to
/// (RESUMED {received, next sequence}), and sends on from there.
extension UDPClient {
    /// `attempt(from)` sends DATA from `from` on and runs END until the REPORT; with
    /// `reconnect`, a keepalive verdict on the way is survived by resuming. Returns what
    /// the attempt that completed returned.
    func sendUntilReport(start: UInt64, _ attempt: (Int) throws -> (UInt64, (report: [UInt64], attempts: UInt64)))
        throws -> (UInt64, [UInt64], UInt64)
    {
        guard let policy = options.reconnect, let size = cell.payload?.size else {
            let (sendNanos, end) = try attempt(0)
            return (sendNanos, end.report, end.attempts)
        }
        var events: [ReconnectEvent] = []
        defer { m.reconnects = events }
        var from = 0
        while true {
            do {
                let (sendNanos, end) = try attempt(from)
                return (sendNanos, end.report, end.attempts)
            } catch let lost as UDPPeerLost where events.count < ReconnectPolicy.maxReconnects {
                let lostAt = MonotonicClock.now()
                let (next, tries) = try resume(after: lost, policy: policy)
                let at = MonotonicClock.now()
                events.append(
                    ReconnectEvent(
                        lostAtNanos: lostAt, connectedAtNanos: at, resumedAtNanos: at, attempts: tries,
                        resentBytes: max(0, handed - next) * size))
                from = next
            }
        }
    }

    /// RESUME (`seq` = attempt) until a RESUMED answers it; attempt i waits the policy's
    /// delay i. The keepalive pauses meanwhile (it has given its verdict) and starts
    /// afresh from the answer. Returns the DATA sequence to carry on from and the
    /// attempts it took; throws at the cell's deadline.
    private func resume(after lost: UDPPeerLost, policy: ReconnectPolicy) throws -> (next: Int, attempts: Int) {
        let paused = keepAlive
        keepAlive = nil
        var attempt = 0
        while cell.remainingNanos > 0 {
            let slot = policy.delayNanos(attempt: attempt)
            try send(header(.resume, UInt64(attempt)).datagram())
            attempt += 1
            let answer: [UInt64]?
            do { answer = try waitFor(.resumed, sequence: UInt64(attempt - 1), within: min(slot, cell.remainingNanos)) } catch {
                throw TransportError("\(lost); resuming failed after \(attempt) attempts: \(error)")
            }
            guard let answer, answer.count >= 2 else { continue }
            keepAlive = paused.map {
                var k = $0
                k.heard(at: MonotonicClock.now())
                return k
            }
            // The server's next sequence, bounded by the DATA this cell has.
            return (Int(clamping: min(answer[1], UInt64(cell.payload?.count ?? 0))), attempt)
        }
        throw TransportError("\(lost); resuming failed: no answer before the cell deadline after \(attempt) attempts")
    }
}
