import ArgumentParser
import Foundation
import Logging
import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import RemoteLink

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Answer 'peerbench run --link remote' from a second host: one authenticated session at a time.",
        discussion: """
            Listens on the control port (TLS 1.3 with the pre-shared key; see docs/protocol/control.md). Per cell it starts \
            the requested plugin's server on a data port that admits only the authenticated client, for the cell's duration \
            only. Logs one line per session and per cell on stderr. SIGINT or SIGTERM stops it.
            """
    )

    @Option(help: "Address and port of the control channel, ADDR[:PORT] or [IPv6]:PORT (port \(ServeLimits.defaultPort) when left out).")
    var listen: String = "0.0.0.0:\(ServeLimits.defaultPort)"

    @Option(name: .customLong("psk-file"), help: "The pre-shared key file ('peerbench psk new FILE'); the client must hold the same.")
    var pskFile: String

    @Option(
        name: .customLong("data-ports"),
        help: "Ports the cells' servers bind to, LOW-HIGH; each is open only during its cell and only to the authenticated client.")
    var dataPorts: String = "\(ServeLimits.defaultDataPorts.lowerBound)-\(ServeLimits.defaultDataPorts.upperBound)"

    @Option(
        help:
            "Keep serve's data-plane certificate and key in DIR: made there once (mode 700, key 600), loaded afterwards, so its SHA-256 stays the same across restarts. Without it serve makes a fresh one each time it starts."
    )
    var identity: String?

    @Flag(help: "Serve one session, then exit.")
    var once = false

    @Option(name: .customLong("idle-timeout"), help: "Seconds a session may stay silent between cells before it is closed.")
    var idleTimeout: Double = ServeLimits().idleTimeoutSeconds

    @Option(name: .customLong("max-cell-seconds"), help: "The longest cell timeout accepted, seconds; longer cells are refused.")
    var maxCellSeconds: Double = ServeLimits().maxCellSeconds

    @Option(name: .customLong("max-payload-bytes"), help: "The largest bulk phase (count x size) accepted per cell, bytes.")
    var maxPayloadBytes: Int = ServeLimits().maxPayloadBytes

    @Flag(
        name: .customLong("allow-exec"),
        help:
            "Run the exec plugin, whose options name a command: lets the authenticated client run programs here, whose ports are outside --data-ports and the peer filter."
    )
    var allowExec = false

    @Flag(help: "Publish this server by DNS-SD (_peerbench._tcp, through Avahi) so 'run --peer auto' finds it.")
    var advertise = false

    @Option(
        name: .customLong("advertise-name"), help: "With --advertise: the instance name 'run --peer auto:NAME' asks for (default: this host's name).")
    var advertiseName: String?

    @Flag(help: "Print debug logging from the plugins.")
    var verbose = false

    func validate() throws {
        if !(idleTimeout > 0) { throw ValidationError("--idle-timeout must be a number of seconds above 0, got \(idleTimeout)") }
        if !(maxCellSeconds > 0) { throw ValidationError("--max-cell-seconds must be a number of seconds above 0, got \(maxCellSeconds)") }
        if advertiseName != nil && !advertise { throw ValidationError("--advertise-name needs --advertise") }
        if maxPayloadBytes < 0 { throw ValidationError("--max-payload-bytes must be 0 or more, got \(maxPayloadBytes)") }
    }

    /// `LOW-HIGH`, both in 1...65535, LOW <= HIGH.
    static func parsePorts(_ text: String) throws(InputError) -> ClosedRange<UInt16> {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let low = UInt16(parts[0]), let high = UInt16(parts[1]), low > 0, low <= high else {
            throw InputError(source: "--data-ports", "\"\(text)\" is not a port range LOW-HIGH with 1 <= LOW <= HIGH <= 65535")
        }
        return low...high
    }

    func run() async throws {
        signal(SIGPIPE, SIG_IGN)
        var configuration: ServeConfiguration
        do {
            let listenAddress = try RemotePeer.resolve(listen, option: "--listen")
            let ports = try Self.parsePorts(dataPorts)
            if ports.contains(listenAddress.port) {
                throw InputError(
                    source: "--data-ports",
                    "\(dataPorts) includes the control port \(listenAddress.port) (--listen); choose ranges that do not overlap")
            }
            let key = try RemoteTestbed.loadKey(pskFile)
            var limits = ServeLimits()
            limits.idleTimeoutSeconds = idleTimeout
            limits.maxCellSeconds = maxCellSeconds
            limits.maxPayloadBytes = maxPayloadBytes
            limits.allowExec = allowExec
            configuration = ServeConfiguration(
                listen: listenAddress, key: key, dataPorts: ports, limits: limits, once: once,
                registry: Wiring.registry, software: "peerbench \(Manifest.peerbenchVersion)")
            if let identity {
                do { configuration.identity = try ServeIdentity.loadOrCreate(in: identity) } catch let e as InputError { throw e } catch {
                    throw InputError(source: identity, "cannot make serve's identity there: \(error)")
                }
            }
        } catch let e as InputError { throw fail(e) }
        var logger = Logger(label: "peerbench-serve")
        logger.logLevel = verbose ? .debug : .warning
        let responder: ServeResponder
        do { responder = try ServeResponder(configuration, logger: logger) } catch {
            Terminal.error("cannot listen on \(configuration.listen): \(error)")
            throw ExitStatus.testbed
        }
        // A stop signal ends serve at once: a running cell's client sees its control
        // session close and records the cell failed; the kernel frees every port.
        // serve's certificate and key (ServeIdentity) go with it.
        let identity = responder.identity
        let trap = InterruptTrap(
            signals: [SIGINT, SIGTERM, SIGHUP],
            onFirst: { sig in
                ServeLog().line("\(InterruptTrap.name(sig)) received: exiting")
                identity?.remove()
                _exit(0)
            },
            onSecond: { _ in
                identity?.remove()
                _exit(0)
            })
        // Withdrawn when serve ends, however it ends (Discovery's lifeline).
        let advertisement: Advertisement?
        do { advertisement = try advertise ? Discovery.advertise(name: advertiseName, port: configuration.listen.port) : nil } catch {
            Terminal.error("cannot advertise by DNS-SD: \(error)")
            throw ExitStatus.testbed
        }
        if let advertisement {
            ServeLog().line("advertised by DNS-SD as \"\(advertisement.name)\" (\(RemoteLink.serviceType), port \(advertisement.port))")
        }
        await responder.run()
        advertisement?.stop()
        identity?.remove()
        trap.cancel()
    }
}
