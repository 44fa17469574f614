import GnuTLSSupport

/// What a QUIC server needs to resume its clients' sessions (`resumption`): one ticket
/// key per server (all its connections), and with 0-RTT the memory of ClientHellos
/// already accepted. Lives as long as the server, so for one cell.
final class QUICServerResumption: Sendable {
    let ticketKey: TLSSessionTicketKey
    /// nil: tickets without early data.
    let antiReplay: TLSAntiReplay?

    /// `windowMilliseconds`: how old a ticket offered with early data may be (GnuTLS
    /// refuses early data with a ticket from before its window began).
    init(earlyData: Bool, windowMilliseconds: UInt32 = 10_000) throws {
        ticketKey = try TLSSessionTicketKey()
        antiReplay = earlyData ? try TLSAntiReplay(windowMilliseconds: windowMilliseconds) : nil
    }
}
