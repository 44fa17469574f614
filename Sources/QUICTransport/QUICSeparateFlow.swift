import Foundation
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchWorkloads
import Synchronization

/// Loaded probes on a separate flow for QUIC (`loadedRttProbes.flow` `separate`,
/// docs/protocol/quic.md): a second QUIC connection of the cell's client, with its
/// own handshake and congestion controller, that opens with PROBE_HELLO and carries
/// only PINGs, run by its own `QUICClient` on its own thread while the first
/// connection carries the bulk phase.
final class QUICSeparateFlow: Sendable {
    /// Ends the probing thread's wait (its client's `waker`).
    private let waker: ChannelWaker
    private let stopRequested = Mutex(false)
    private let ended = DispatchSemaphore(value: 0)
    /// Set by the probing thread before `ended` is signalled, read after it.
    private let result = Mutex<Result<(rtts: [UInt64], sent: Int), any Error>>(.success(([], 0)))

    /// Starts at once. `client` must have been made on the calling thread (its UDP
    /// socket belongs to the client's network namespace); it becomes the probing
    /// thread's, which alone uses it from here on.
    init(client: sending QUICClient, probes: LoadedRttProbes) {
        waker = client.waker
        let handover = Mutex<QUICClient?>(client)
        CPUAccount.startThread("quic separate-flow probes") { [self] in
            let client = handover.withLock { $0.take() }!  // there, and only this thread takes it
            let outcome = Result { try client.probeFlow(probes) { self.stopRequested.withLock { $0 } } }
            result.withLock { $0 = outcome }
            ended.signal()
        }
    }

    /// Stops the probes (within one event-loop turn), closes the connection and
    /// returns the RTTs (send order) and how many were sent; again, the same result.
    @discardableResult
    func finish() throws -> (rtts: [UInt64], sent: Int) {
        let first = stopRequested.withLock { stop in
            defer { stop = true }
            return !stop
        }
        if first {
            waker.wake()
            ended.wait()
        }
        return try result.withLock { $0 }.get()
    }
}
