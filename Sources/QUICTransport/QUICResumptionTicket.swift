import GnuTLSSupport

/// What a QUIC client remembers of a server to resume with it (`resumption`): the TLS
/// session (the server's latest ticket) and, for 0-RTT, the server's transport
/// parameters, within which early data must stay (RFC 9000, section 7.4.1).
struct QUICResumptionTicket: Sendable {
    var session: ResumptionData
    /// As ngtcp2 encodes them (the server's EncryptedExtensions form).
    var transportParameters: [UInt8]
}
