/// A client's migration in progress (`migrate`): the new socket and when the move
/// began, while ngtcp2 validates the new path. The old socket still carries the data.
struct MigrationProbe {
    /// The new socket, connected to the server.
    let channel: UDPChannel
    /// Its address, to tell which packets ngtcp2 wrote for the new path.
    let local: SockAddrBox
    /// When the client judged its path dead and started the move.
    let startedAt: UInt64
    /// The start of the silence that made it move.
    let silentSince: UInt64
}
