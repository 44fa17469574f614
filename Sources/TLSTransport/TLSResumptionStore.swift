import GnuTLSSupport
import Synchronization

/// The client's memory of its last TLS session with the cell's server (`sessionTickets`):
/// the data the priming connection saved once the server's ticket arrived, offered by
/// every later connection of the same client run (the measured one, a separate probe
/// flow, a reconnect). Owned by one client run, never written to disk; thread-safe, as a
/// probe flow connects from another thread.
final class TLSResumptionStore: Sendable {
    private let saved = Mutex<ResumptionData?>(nil)

    init() {}

    /// The last session saved, if any.
    var latest: ResumptionData? { saved.withLock { $0 } }

    /// Keeps `data` in place of what was there (a newer ticket replaces an older one).
    func save(_ data: ResumptionData) {
        saved.withLock { $0 = data }
    }
}
