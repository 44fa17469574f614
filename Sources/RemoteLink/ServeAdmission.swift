/// Which connections serve lets into a TLS handshake (issue 24): at most
/// `perAddress` at once from one source address and `total` overall. A stranger
/// holding as many slow connections as it likes fills only its own address's share,
/// so a client from another address always finds a slot; a refused connection is
/// told "busy, try again" (`ServeRefusal`). A value type, no clock, no sockets.
struct ServeAdmission: Sendable {
    enum Decision: Equatable, Sendable {
        case admitted
        /// This address already has `perAddress` handshakes running.
        case addressFull
        /// All `total` handshake slots are taken.
        case allFull
    }

    let total: Int
    let perAddress: Int
    private(set) var running = 0
    private var byAddress: [String: Int] = [:]

    init(total: Int, perAddress: Int) {
        self.total = total
        self.perAddress = perAddress
    }

    /// Takes a slot for `address` when one is free.
    mutating func admit(_ address: String) -> Decision {
        let mine = byAddress[address, default: 0]
        if mine >= perAddress { return .addressFull }
        if running >= total { return .allFull }
        byAddress[address] = mine + 1
        running += 1
        return .admitted
    }

    /// Gives back a slot `admit` granted.
    mutating func release(_ address: String) {
        guard let mine = byAddress[address], mine > 0 else { return }
        byAddress[address] = mine > 1 ? mine - 1 : nil
        running -= 1
    }

    /// Handshakes running from `address`.
    func running(from address: String) -> Int { byAddress[address, default: 0] }
}
