/// What `peerbench serve` accepts from an authenticated client. Everything has a
/// default (documented in docs/protocol/control.md and `serve --help`) and an option.
public struct ServeLimits: Sendable, Equatable {
    /// The default control port (`--listen ADDR` without a port).
    public static let defaultPort: UInt16 = 47_800
    /// The default data ports (`--data-ports`): 100 ports above the control port.
    public static let defaultDataPorts: ClosedRange<UInt16> = 47_801...47_900

    /// A session that sends nothing for this long (between cells) is closed.
    public var idleTimeoutSeconds: Double = 60
    /// The longest cell (its `timeout_seconds`) serve runs; longer requests are refused.
    public var maxCellSeconds: Double = 600
    /// The largest bulk phase (count x size, bytes) serve accepts for one cell; the
    /// field study's largest (100 000 x 16 384 bytes) fits.
    public var maxPayloadBytes: Int = 4 << 30
    /// Seconds a connecting client gets to complete the TLS handshake. Short, so a
    /// connection that dribbles its handshake frees its slot fast; a TLS 1.3 PSK
    /// handshake is one round trip.
    public var handshakeTimeoutSeconds: Double = 3
    /// Seconds an authenticated client then gets to send HELLO. It holds no handshake
    /// slot by then (only a client with the key gets here), so this stays generous.
    var helloTimeoutSeconds: Double = 10
    /// Whether the `exec` plugin may run: its options name a command, so allowing it
    /// lets the authenticated client run programs on this host. Off unless `--allow-exec`.
    public var allowExec = false

    public init() {}
}
