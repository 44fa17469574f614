public import PeerBenchPlugin
public import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

/// What `peerbench serve` was started with.
public struct ServeConfiguration: Sendable {
    /// The control port's address (`--listen`).
    public var listen: SocketAddress
    public var key: PreSharedKey
    /// Where cells' servers bind (`--data-ports`).
    public var dataPorts: ClosedRange<UInt16>
    public var limits: ServeLimits
    /// Serve one session, then exit (`--once`).
    public var once: Bool
    public var registry: PluginRegistry
    /// This build's name and version, for HELLO.
    public var software: String
    /// The certificate quic and tls cells present (`ServeIdentity`); nil until the
    /// responder starts, which makes a fresh one.
    public var identity: ServeIdentity?

    public init(
        listen: SocketAddress, key: PreSharedKey, dataPorts: ClosedRange<UInt16> = ServeLimits.defaultDataPorts,
        limits: ServeLimits = ServeLimits(), once: Bool = false, registry: PluginRegistry, software: String
    ) {
        self.listen = listen
        self.key = key
        self.dataPorts = dataPorts
        self.limits = limits
        self.once = once
        self.registry = registry
        self.software = software
    }

    /// The plugins HELLO lists: what this serve will run.
    public var plugins: [String] { registry.names.filter { $0 != "exec" || limits.allowExec } }
}
