import Synchronization

/// The client's memory of its last QUIC session with the cell's server
/// (`QUICResumptionTicket`): filled by the priming connection, read by the measured
/// connection (and a reconnect). Owned by one client run, kept in memory only;
/// thread-safe, as connections may run on other threads.
final class QUICResumptionStore: Sendable {
    private let saved = Mutex<QUICResumptionTicket?>(nil)

    init() {}

    var latest: QUICResumptionTicket? { saved.withLock { $0 } }

    /// Keeps `ticket` in place of what was there (a newer ticket replaces an older one).
    func save(_ ticket: QUICResumptionTicket) {
        saved.withLock { $0 = ticket }
    }
}
