import PeerBenchTestbed

/// Where a cell's server comes from.
public enum ServerSource: Sendable {
    /// The plugin starts its own server on the server endpoint (emulated, loopback).
    case plugin
    /// A server already running elsewhere — on the peer host, started by the runner
    /// through `RemoteServerHost` — known by its address and hello only.
    case started(StartedServer)
}
