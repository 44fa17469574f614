import PeerBenchPlugin

/// A client's `migrate` state (`QUICClient+Migration`): the current path's judge, the
/// new socket while its path is validated, and the migrations made and abandoned.
struct ClientMigration {
    /// The current path's judge (nil = `migrate` off).
    var pathWatch: PathWatch?
    /// The migrations made so far.
    var events: [MigrationEvent] = []
    /// The new socket while its path is validated (nil = none).
    var probing: MigrationProbe?
    /// Moves abandoned because the new path did not validate.
    var failed = 0
}
