public import PeerBenchJSON
public import PeerBenchPlugin
import PeerBenchSockets
public import PeerBenchSystem
import PeerBenchWorkloads

/// The TLS plugin's matrix options.
public struct TLSOptions: Sendable, Equatable {
    /// A TLS 1.3 external pre-shared key, as hex text (at least 16 bytes).
    public struct PreSharedKey: Sendable, Equatable {
        public var hex: String
        public var bytes: [UInt8]

        /// nil unless `hex` is an even number of hex digits.
        public init?(hex: String) {
            guard let bytes = Hex.decode(hex) else { return nil }
            self.hex = hex.lowercased()
            self.bytes = bytes
        }
    }

    /// TCP_NODELAY on both sides (Nagle off).
    public var noDelay: Bool
    /// Use this pre-shared key instead of certificates (both sides hold it).
    public var psk: PreSharedKey?
    /// The PSK identity the client names.
    public var pskIdentity: String
    /// CA the client trusts; nil = the bundled `certs/ca.pem`.
    public var caFile: String?
    /// Server certificate and key; nil = the bundled `certs/server.pem` / `server-key.pem`.
    public var certFile: String?
    public var keyFile: String?
    /// Name the client expects in the server's certificate (and sends as SNI when it is
    /// a DNS name); nil = the server endpoint's address.
    public var serverName: String?
    /// RTT probes during the bulk phase, on the same TLS stream; nil = off.
    public var loadedRttProbes: LoadedRttProbes? = nil
    /// TCP_CONGESTION on both ends; nil = the host's default.
    public var congestionControl: String? = nil
    /// TLS 1.3 session tickets: the server hands them out (a key per server), the client
    /// makes a priming connection first and the measured connection resumes its session
    /// (with `reconnect`: the first connection's ticket resumes the re-made ones).
    public var sessionTickets = false
    /// TCP_USER_TIMEOUT on both ends (as tcp's `userTimeoutMs`); nil = the kernel's default.
    public var userTimeout: TCPUserTimeout? = nil
    /// Connect (and handshake) again and resume after a lost connection in the bulk phase; nil = off.
    public var reconnect: ReconnectPolicy? = nil

    public init(
        noDelay: Bool = false, psk: PreSharedKey? = nil, pskIdentity: String = "peerbench", caFile: String? = nil,
        certFile: String? = nil, keyFile: String? = nil, serverName: String? = nil
    ) {
        self.noDelay = noDelay
        self.psk = psk
        self.pskIdentity = pskIdentity
        self.caFile = caFile
        self.certFile = certFile
        self.keyFile = keyFile
        self.serverName = serverName
    }

    public init(_ options: PluginOptions) throws(InputError) {
        noDelay = try options.bool("noDelay", default: false)
        if let hex = try options.string("psk", default: nil) {
            guard let key = PreSharedKey(hex: hex) else {
                throw InputError(
                    path: options.path.key("psk").description, "expected an even number of hex digits, e.g. \"00112233445566778899aabbccddeeff\"")
            }
            guard key.bytes.count >= 16 else {
                throw InputError(
                    path: options.path.key("psk").description, "a pre-shared key needs at least 16 bytes (32 hex digits); got \(key.bytes.count)")
            }
            psk = key
        } else {
            psk = nil
        }
        pskIdentity = try options.string("pskIdentity", default: "peerbench") ?? "peerbench"
        caFile = try options.string("caFile", default: nil)
        certFile = try options.string("certFile", default: nil)
        keyFile = try options.string("keyFile", default: nil)
        serverName = try options.string("serverName", default: nil)
        loadedRttProbes = try LoadedRttProbes.read(options)
        congestionControl = try CongestionControl.read(options)
        sessionTickets = try options.bool("sessionTickets", default: false)
        userTimeout = try TCPUserTimeout.read(options)
        reconnect = try ReconnectPolicy.readForStream(options, userTimeout: userTimeout, withLoadedRttProbes: loadedRttProbes != nil)
    }

    static let descriptors: [OptionDescriptor] =
        [
            OptionDescriptor("noDelay", type: "bool", default: "false", help: "Disable Nagle's algorithm (TCP_NODELAY) on both sides."),
            OptionDescriptor(
                "psk", type: "string", default: "null",
                help: "TLS 1.3 pre-shared key as hex (>= 32 digits); replaces certificates, as some peer-to-peer apps do."),
            OptionDescriptor("pskIdentity", type: "string", default: "peerbench", help: "The PSK identity the client names."),
            OptionDescriptor("caFile", type: "path", default: "certs/ca.pem", help: "PEM file of the CA the client trusts."),
            OptionDescriptor("certFile", type: "path", default: "certs/server.pem", help: "PEM certificate the server presents."),
            OptionDescriptor("keyFile", type: "path", default: "certs/server-key.pem", help: "PEM private key of the server certificate."),
            OptionDescriptor(
                "serverName", type: "string", default: "server address",
                help: "Name the client verifies in the certificate (sent as SNI when it is a DNS name)."),
            OptionDescriptor(
                "sessionTickets", type: "bool", default: "false",
                help:
                    "TLS 1.3 session resumption: a priming connection fetches a ticket, the measured connection resumes with it (connect_ms is the resumed handshake's); with reconnect, the re-made connections resume."
            ),
        ] + LoadedRttProbes.descriptors + [CongestionControl.descriptor, TCPUserTimeout.descriptor] + ReconnectPolicy.descriptors
}
