import GnuTLSSupport

/// What a QUIC server needs to resume its clients' sessions (`resumption`): one ticket
/// key per server (all its connections), and with 0-RTT the memory of ClientHellos
/// already accepted. Lives as long as the server, so for one cell.
final class QUICServerResumption: Sendable {
    let ticketKey: TLSSessionTicketKey
    /// nil: tickets without early data.
    let antiReplay: TLSAntiReplay?

    init(earlyData: Bool) throws {
        ticketKey = try TLSSessionTicketKey()
        antiReplay = earlyData ? try TLSAntiReplay() : nil
    }
}
