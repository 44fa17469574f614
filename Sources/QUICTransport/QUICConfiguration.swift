import CNgtcp2
import PeerBenchPlugin
import PeerBenchWorkloads

/// How bulk messages map to QUIC streams.
public enum StreamMode: String, Sendable, CaseIterable {
    /// One bulk stream carries every message, back to back.
    case single
    /// Each message on its own bulk stream.
    case perMessage
}

/// The congestion controllers ngtcp2 0.12 implements.
public enum CongestionControl: String, Sendable, CaseIterable {
    case cubic, reno, bbr, bbr2

    var ngtcp2: ngtcp2_cc_algo {
        switch self {
        case .cubic: NGTCP2_CC_ALGO_CUBIC
        case .reno: NGTCP2_CC_ALGO_RENO
        case .bbr: NGTCP2_CC_ALGO_BBR
        case .bbr2: NGTCP2_CC_ALGO_BBR2
        }
    }
}

/// Everything one QUIC cell needs, read from the matrix's options.
struct QUICConfiguration: Sendable {
    /// The plugin's application protocol (docs/protocol/quic.md).
    static let alpn = "peerbench-quic/2"

    var alpn = QUICConfiguration.alpn
    var streams = QUICDefaults.streams
    var connection = ConnectionSettings()
    var caFile: String
    var certFile: String
    var keyFile: String
    var clientCertFile: String
    var clientKeyFile: String
    /// Name the server certificate must cover; nil = the server's address.
    var serverName: String?
    var mutualTLS = false
    /// Client: the SHA-256 the server's certificate must have (`CertificatePin`, serve's
    /// own identity over a remote link), checked instead of `caFile` and the name.
    var certificatePin: [UInt8]?
    /// PINGs on the control stream during the bulk phase (`loadedRttProbes`); nil = off.
    var loadedRttProbes: LoadedRttProbes?
    /// `idleTimeoutSeconds` as the matrix gave it; nil = absent (the default applies).
    /// The dead-peer timeout of scenario cells (QUICIdleTimeout.swift).
    var configuredIdleTimeoutSeconds: Double?
    /// TLS session resumption: the server hands out tickets; the client primes a
    /// session on a first connection and resumes it on the measured one.
    var resumption = false
    /// With `resumption`: the measured connection sends HELLO and its first probe as
    /// 0-RTT early data, and the server accepts early data (with anti-replay).
    var zeroRTT = false
    /// After the idle timeout ends the connection in the bulk phase, make a new one
    /// (resumed with `resumption`) and send on from the server's count; nil = off.
    var reconnect: ReconnectPolicy?
    /// When the path dies under a live connection, move it to a new local port
    /// (client, `MigrationPolicy`); nil = off.
    var migrate: MigrationPolicy?
    /// Server, `zeroRTT`: the anti-replay window; nil = GnuTLS's 10 s. With `reconnect`
    /// the whole cell, so a re-made connection after a long outage may still send 0-RTT
    /// with the primed ticket (replays stay refused: the ClientHello memory is bounded
    /// by count, not by the window).
    var antiReplayWindowMilliseconds: UInt32?

    /// The name the client verifies for a server reached at `host`.
    func expectedName(for host: String) -> String { serverName ?? host }
}
