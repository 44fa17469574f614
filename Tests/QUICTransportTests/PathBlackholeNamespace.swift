#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PeerBenchPlugin

/// A network namespace of the test's own, with only loopback, shaped to `rateMbit` (tbf
/// on `lo`, so a bulk transfer lasts long enough to be cut in the middle), where one UDP
/// port can be blackholed: policy-routing rules that forbid every packet from or to it
/// (`ip rule ... sport/dport PORT prohibit`; the lookup of the local table moves behind
/// them, else it would answer first). That is what a NAT rebinding or an interface change
/// does to a QUIC client's 4-tuple: its old port no longer reaches the server, nor the
/// server it; a new socket does. Sends on the blackholed port fail (EACCES), which the
/// plugin counts as lost datagrams. `remove` deletes the namespace and all of it.
struct PathBlackholeNamespace {
    let namespace: NetworkNamespace
    var endpoint: Endpoint { Endpoint(address: "127.0.0.1", namespace: namespace) }

    static var canCreate: Bool {
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: ip) && FileManager.default.isExecutableFile(atPath: tc)
    }
    static let ip = "/usr/sbin/ip"
    static let tc = "/usr/sbin/tc"

    /// Creates it; on any failure whatever was made is removed before the error.
    init(tag: String, rateMbit: Int) throws {
        namespace = NetworkNamespace(name: "pbmig-\(tag)-\(getpid())")
        try? Self.run(Self.ip, ["netns", "del", namespace.name])
        try Self.run(Self.ip, ["netns", "add", namespace.name])
        do {
            try Self.run(Self.ip, ["-n", namespace.name, "link", "set", "lo", "up"])
            try Self.run(Self.ip, ["-n", namespace.name, "rule", "add", "pref", "100", "lookup", "local"])
            try Self.run(Self.ip, ["-n", namespace.name, "rule", "del", "pref", "0"])
            try Self.run(Self.ip, ["netns", "exec", namespace.name, Self.tc, "qdisc", "add", "dev", "lo", "root", "tbf",
                                   "rate", "\(rateMbit)mbit", "burst", "32kb", "latency", "30ms"])
        } catch {
            remove()
            throw error
        }
    }

    /// Forbids every UDP packet from or to `port` in the namespace.
    func blackhole(port: UInt16) throws {
        for (pref, dir) in [(10, "sport"), (11, "dport")] {
            try Self.run(Self.ip, ["-n", namespace.name, "rule", "add", "pref", "\(pref)", "ipproto", "udp", dir, "\(port)", "prohibit"])
        }
    }

    /// Lets `port` through again.
    func lift(port: UInt16) throws {
        for pref in [10, 11] { try Self.run(Self.ip, ["-n", namespace.name, "rule", "del", "pref", "\(pref)"]) }
    }

    func remove() { try? Self.run(Self.ip, ["netns", "del", namespace.name]) }

    /// The local ports of the UDP sockets in the namespace connected to `serverPort`
    /// (the QUIC client's), from the namespace's /proc/net/udp.
    func clientPorts(talkingTo serverPort: UInt16) async throws -> [UInt16] {
        let text = try await endpoint.run("pbmig-proc") { try String(contentsOfFile: "/proc/thread-self/net/udp", encoding: .utf8) }
        func port(_ field: Substring) -> UInt16? { field.split(separator: ":").last.flatMap { UInt16($0, radix: 16) } }
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let f = line.split(separator: " ")
            guard f.count > 2, let local = port(f[1]), let remote = port(f[2]), remote == serverPort, local != serverPort else { return nil }
            return local
        }
    }

    static func run(_ program: String, _ args: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: program)
        p.arguments = args
        let err = Pipe()
        p.standardError = err
        try p.run()
        let message = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw TransportError("\(program) \(args.joined(separator: " ")): exit \(p.terminationStatus): \(String(decoding: message, as: UTF8.self))")
        }
    }
}
