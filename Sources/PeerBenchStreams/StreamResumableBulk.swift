import PeerBenchPlugin
import PeerBenchSystem

/// The bulk phase of a stream client with `reconnect` (docs/protocol/tcp.md,
/// "Reconnect"): when the connection fails, the client connects again with the
/// policy's backoff until the cell's deadline, presents its session token (RESUME),
/// and sends on from the message the server says it holds (RESUMED), so every message
/// arrives exactly once. Each re-made connection is a `ReconnectEvent`.
///
/// Every failure before the REPORT counts as a lost connection (the transport's own
/// detection: TCP_USER_TIMEOUT, keepalive), except after the cell's cancellation. A
/// server that refuses the RESUME (closes, or answers otherwise) ends the cell.
public struct StreamResumableBulk {
    public let policy: ReconnectPolicy
    public let token: UInt64
    /// The cell's deadline (`MonotonicClock`): no attempt starts after it.
    public let deadline: UInt64
    /// tcp's HELLO, sent before RESUME; nil for tls (the handshake is the greeting).
    public let greeting: StreamGreeting?
    /// True once the cell is cancelled: no more attempts.
    public let cancelled: () -> Bool
    /// Opens a new connection whose set-up may take at most the given nanoseconds.
    public let connect: (_ timeoutNanos: UInt64) throws -> StreamConnection

    public init(
        policy: ReconnectPolicy, token: UInt64, deadline: UInt64, greeting: StreamGreeting?,
        cancelled: @escaping () -> Bool, connect: @escaping (UInt64) throws -> StreamConnection
    ) {
        self.policy = policy
        self.token = token
        self.deadline = deadline
        self.greeting = greeting
        self.cancelled = cancelled
        self.connect = connect
    }

    /// Runs the bulk phase of `payload`, first on `first`; returns the connection it
    /// ended on when that is a re-made one (the caller says GOODBYE on it and closes
    /// it), nil when `first` lasted. `m.reconnects` lists what happened.
    public func run(_ payload: Payload, on first: StreamWorkloadClient, into m: inout TransportMeasurement) throws -> StreamConnection? {
        let progress = BulkProgress()
        var current: StreamConnection?
        var workload = first
        var events: [ReconnectEvent] = []
        defer { m.reconnects = events }
        while true {
            progress.handed = progress.offset
            do {
                try workload.bulk(payload, progress: progress, into: &m)
                break
            } catch {
                let lostAt = MonotonicClock.now()
                guard !cancelled(), events.count < ReconnectPolicy.maxReconnects else {
                    current?.close()
                    throw error
                }
                let (next, resumed, attempts): (StreamConnection, StreamResumed, Int)
                do { (next, resumed, attempts) = try reconnect() } catch let failure {
                    current?.close()
                    throw TransportError("\(error); reconnecting failed: \(failure)")
                }
                current?.close()
                current = next
                workload = next.workload
                events.append(
                    ReconnectEvent(
                        lostAtNanos: lostAt, connectedAtNanos: next.connectedAt, resumedAtNanos: MonotonicClock.now(),
                        attempts: attempts, resentBytes: max(0, progress.handed - resumed.messages) * payload.size))
                progress.offset = resumed.messages
            }
        }
        if let d = m.delivery, d.receivedMessages > d.sentMessages { m.delivery?.duplicated = d.receivedMessages - d.sentMessages }
        return current
    }

    /// Attempts until one connects and is resumed: attempt i may take the policy's
    /// delay i, and the next starts when that time is up. Throws the last attempt's
    /// error at the deadline or cancellation, or at once when the server refuses RESUME.
    func reconnect() throws -> (StreamConnection, StreamResumed, Int) {
        var attempt = 0
        while true {
            let began = MonotonicClock.now()
            let slot = policy.delayNanos(attempt: attempt)
            attempt += 1
            var lastError: (any Error)?
            do {
                let connection = try connect(min(slot, remaining(after: began)))
                do {
                    return (connection, try connection.workload.resume(token, greeting: greeting), attempt)
                } catch {
                    connection.close()
                    // A socket error (the link failed again) is worth another attempt; the
                    // server's closing or a wrong answer is its refusal.
                    if error is SystemError { throw error }
                    throw ResumeRefused(error: error)
                }
            } catch let refused as ResumeRefused {
                throw refused.error
            } catch {
                lastError = error
            }
            let now = MonotonicClock.now()
            if cancelled() || now >= deadline { throw lastError ?? TransportError("cell deadline") }
            MonotonicClock.sleep(until: min(began + slot, deadline))
        }
    }

    private func remaining(after t: UInt64) -> UInt64 { deadline > t ? deadline - t : 1_000_000 }

    /// The server answered the connection but not with RESUMED: trying again cannot help.
    struct ResumeRefused: Error {
        let error: any Error
    }
}
