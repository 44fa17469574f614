import PeerBenchPlugin
import PeerBenchSystem

/// Where a bulk phase is and where it started (`StreamWorkloadClient.bulk(_:loadedProbes:progress:into:)`):
/// shared between the attempts of a resumable bulk phase.
public final class BulkProgress {
    /// Messages the server already holds; this attempt sends from here.
    public var offset = 0
    /// Messages written so far (the offset included): handed to the connection, not
    /// necessarily received.
    public var handed = 0
    /// When the first attempt began; the bulk time runs from here across reconnects.
    public let startedAt: UInt64

    public init(startedAt: UInt64 = MonotonicClock.now()) { self.startedAt = startedAt }
}
