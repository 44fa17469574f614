import PeerBenchPlugin
import PeerBenchSystem

/// A reconnect attempt's backoff slot ran out before its connection was resumed.
struct AttemptExpired: Error, CustomStringConvertible {
    var description: String { "the attempt's backoff slot ended before RESUMED" }
}

extension QUICFailure {
    /// The connection was lost, as `reconnect` understands it: the idle timeout (the
    /// plugin's loss detection) or ngtcp2 giving up on it. The peer's close, a refusal,
    /// a protocol violation, the deadline or a cancellation end the cell instead.
    var isConnectionLoss: Bool {
        switch self {
        case .idleTimeout, .handshakeTimeout, .library: return true
        default: return false
        }
    }
}

/// `reconnect` for quic (docs/protocol/quic.md, section 4b): the bulk phase survives
/// the idle timeout by making a new connection (`handshake`, so resumed or 0-RTT with
/// `resumption`/`zeroRTT`), sending RESUME with the cell token, and sending on from
/// the messages the server's RESUMED says it holds, so each arrives exactly once.
extension QUICClient {
    /// Runs the bulk phase of `count` messages, first on `first`; returns the connection
    /// it ended on. Fills `m.reconnects` (one `ReconnectEvent` per re-made connection)
    /// and, with `resumption`, `m.resumed` (every connection of the cell resumed).
    func resumableBulk(
        _ policy: ReconnectPolicy, count: Int, size: Int, block: MessageBlock, askSpan: Bool,
        first: QUICConnection, control: Int64, into m: inout TransportMeasurement
    ) throws -> QUICConnection {
        var events: [ReconnectEvent] = []
        defer { m.reconnects = events }
        var connection = first, control = control
        var resumed: Bool? = resumption.store == nil ? nil : first.tls.isResumed
        var offset = 0
        let bulkStart = MonotonicClock.now()
        while true {
            var handed = 0
            do {
                _ = try bulkPhase(
                    count: count, size: size, block: block, askSpan: askSpan, on: connection, stream: control,
                    offset: offset, bulkStart: bulkStart, handed: { handed = $0 }, into: &m)
                break
            } catch let failure as QUICFailure where failure.isConnectionLoss && events.count < ReconnectPolicy.maxReconnects {
                let lostAt = MonotonicClock.now()
                let next: (connection: QUICConnection, control: Int64, answer: ResumedBody, attempts: Int, connectedAt: UInt64)
                do { next = try reconnect(policy) } catch {
                    throw TransportError("\(failure); reconnecting failed: \(error)")
                }
                let held = Int(min(next.answer.messages, UInt64(count)))
                events.append(
                    ReconnectEvent(
                        lostAtNanos: lostAt, connectedAtNanos: next.connectedAt, resumedAtNanos: MonotonicClock.now(),
                        attempts: next.attempts, resentBytes: max(0, offset + handed - held) * size))
                if resumption.store != nil { resumed = (resumed ?? true) && next.connection.tls.isResumed }
                (connection, control, offset) = (next.connection, next.control, held)
            }
        }
        m.resumed = resumed
        return connection
    }

    /// Attempts until one connects and is resumed: attempt i may take the policy's delay
    /// i (handshake and RESUMED), the next starts when that time is up. Throws at the
    /// deadline or cancellation, or at once when the server refuses the RESUME.
    private func reconnect(_ policy: ReconnectPolicy) throws -> (
        connection: QUICConnection, control: Int64, answer: ResumedBody,
        attempts: Int, connectedAt: UInt64
    ) {
        var attempt = 0
        while true {
            let began = MonotonicClock.now()
            let slot = policy.delayNanos(attempt: attempt)
            attempt += 1
            resumption.attemptDeadline = began + slot
            defer { resumption.attemptDeadline = nil }
            var lastError: any Error
            do {
                log.resumedAnswer = nil
                let (connection, _) = try handshake(greeting: .resume(token))
                let connectedAt = connection.handshakeCompletedAt ?? MonotonicClock.now()
                let control = try openControlStream(on: connection)
                // 0-RTT already sent RESUME with the ClientHello.
                if !setup.helloQueued { connection.sender(control).append(copying: FrameEncoder.encode(.resume(token))) }
                setup.helloQueued = true
                try pump("resume") { self.log.resumedAnswer != nil }
                return (connection, control, log.resumedAnswer!, attempt, connectedAt)
            } catch let expired as AttemptExpired {
                lastError = expired
            } catch let failure as QUICFailure where failure.isConnectionLoss {
                lastError = failure
            }
            // The attempt's connection is dropped without a close: its peer, if any, has
            // heard nothing it must answer and reaps it by its handshake or idle timeout.
            dropConnection()
            let now = MonotonicClock.now()
            if cancellation.isCancelled { throw QUICFailure.cancelled(phase: "reconnect") }
            if now >= deadline { throw QUICFailure.deadline(phase: "reconnect (last attempt: \(lastError))") }
            MonotonicClock.sleep(until: min(began + slot, deadline))
        }
    }
}
