import PeerBenchSystem

/// One connection migration during a cell (quic's `migrate`): the client judged its
/// path dead while the connection lived and moved the same connection to a new local
/// address, with no new handshake. Instants on the client's monotonic clock
/// (`MonotonicClock`, nanoseconds), for the record's `scenario` (docs/RECORDS.md,
/// "scenario": `migrations`, `migration_ms`) and `extra.quic.migrations`.
public struct MigrationEvent: Sendable, Equatable, Codable {
    /// The start of the silence that made the client migrate: the last acknowledgement
    /// of stream data (or the last datagram) before it.
    public var silentSinceNanos: UInt64
    /// When the client judged its path dead and started the move (opened the new socket).
    public var migratedAtNanos: UInt64
    /// When the server answered on the new path (QUIC path validation); nil when the
    /// transport does not validate first.
    public var validatedAtNanos: UInt64?
    /// The first stream data the server acknowledged on the new path: back to work. nil
    /// when nothing was acknowledged after the migration.
    public var backAtNanos: UInt64?

    public init(silentSinceNanos: UInt64, migratedAtNanos: UInt64, validatedAtNanos: UInt64? = nil, backAtNanos: UInt64? = nil) {
        self.silentSinceNanos = silentSinceNanos
        self.migratedAtNanos = migratedAtNanos
        self.validatedAtNanos = validatedAtNanos
        self.backAtNanos = backAtNanos
    }

    enum CodingKeys: String, CodingKey {
        case silentSinceNanos = "silent_since_ns", migratedAtNanos = "migrated_at_ns", validatedAtNanos = "validated_at_ns"
        case backAtNanos = "back_at_ns"
    }
}
