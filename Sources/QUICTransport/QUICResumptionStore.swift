import GnuTLSSupport
import Synchronization

/// What a QUIC client remembers of a server to resume with it (`resumption`): the TLS
/// session (the server's latest ticket) and, for 0-RTT, the server's transport
/// parameters, within which early data must stay (RFC 9000, section 7.4.1).
struct QUICResumptionTicket: Sendable {
    var session: ResumptionData
    /// As ngtcp2 encodes them (the server's EncryptedExtensions form).
    var transportParameters: [UInt8]
}

/// The client's memory of its last QUIC session with the cell's server: filled by the
/// priming connection, read by the measured connection (and a reconnect). Owned by one
/// client run, kept in memory only; thread-safe, as connections may run on other threads.
final class QUICResumptionStore: Sendable {
    private let saved = Mutex<QUICResumptionTicket?>(nil)

    init() {}

    var latest: QUICResumptionTicket? { saved.withLock { $0 } }

    func save(_ ticket: QUICResumptionTicket) {
        saved.withLock { $0 = ticket }
    }
}

/// What a QUIC server needs to resume its clients' sessions: one ticket key per server
/// (all its connections), and with 0-RTT the memory of ClientHellos already accepted.
final class QUICServerResumption: Sendable {
    let ticketKey: TLSSessionTicketKey
    /// nil: tickets without early data.
    let antiReplay: TLSAntiReplay?

    init(earlyData: Bool) throws {
        ticketKey = try TLSSessionTicketKey()
        antiReplay = earlyData ? try TLSAntiReplay() : nil
    }
}
