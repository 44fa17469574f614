import Foundation
import PeerBenchPlugin
import Synchronization

/// Loaded probes on a separate flow for QUIC (`loadedRttProbes.flow` `separate`,
/// docs/protocol/quic.md): a second QUIC connection of the cell's client, with its
/// own handshake and congestion controller, that opens with PROBE_HELLO and carries
/// only PINGs, run by its own `QUICClient` on its own thread while the first
/// connection carries the bulk phase.
final class QUICSeparateFlow: @unchecked Sendable {
    private let client: QUICClient
    private let stopRequested = Mutex(false)
    private let ended = DispatchSemaphore(value: 0)
    // Written by the probing thread before `ended` is signalled, read after it.
    private var result: Result<(rtts: [UInt64], sent: Int), any Error> = .success(([], 0))
    private var collected: Result<(rtts: [UInt64], sent: Int), any Error>?

    /// Starts at once. `client` must have been made on the calling thread (its UDP
    /// socket belongs to the client's network namespace).
    init(client: QUICClient, probes: LoadedRttProbes) {
        self.client = client
        CPUAccount.startThread("quic separate-flow probes") { [self] in
            // Only this thread uses `client` until `ended` is signalled (`wake` is thread-safe).
            result = Result { try self.client.probeFlow(probes) { self.stopRequested.withLock { $0 } } }
            ended.signal()
        }
    }

    /// Stops the probes (within one event-loop turn), closes the connection and
    /// returns the RTTs (send order) and how many were sent; again, the same result.
    @discardableResult
    func finish() throws -> (rtts: [UInt64], sent: Int) {
        if let collected { return try collected.get() }
        stopRequested.withLock { $0 = true }
        client.wake()
        ended.wait()
        collected = result
        return try result.get()
    }
}
