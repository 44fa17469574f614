/// Where the client reads the server's datagrams (`UDPClient.waitFor`, `receive`): its
/// own buffer, filled from the socket, or from a bidir bulk phase's mailbox.
struct UDPInbox {
    /// Big enough for any datagram: a REPORT with its whole bulk series (8 KiB of
    /// intervals), a RESPONSE of up to 65 483 bytes.
    var buffer = [UInt8](repeating: 0, count: 65_536)
    /// While a bidir bulk phase runs: the down receiver owns the socket's reading and
    /// hands `waitFor` every datagram that is not the download's.
    var mailbox: UDPMailbox?
}
