import Foundation
import PeerBenchPlugin
import PeerBenchSystem
import TransportTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A network namespace of the test's own, with only loopback, shaped to `rateMbit` (tbf
/// on `lo`, so a bulk transfer lasts long enough to be cut in the middle), where one UDP
/// port can be blackholed (`PortBlackhole`): the QUIC client's old port no longer
/// reaches the server, nor the server it; a new socket does. Sends on the blackholed
/// port fail (EACCES), which the plugin counts as lost datagrams. `remove` deletes the
/// namespace and all of it.
struct PathBlackholeNamespace {
    let namespace: NetworkNamespace
    var endpoint: Endpoint { Endpoint(address: "127.0.0.1", namespace: namespace) }

    static var canCreate: Bool {
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: ip) && FileManager.default.isExecutableFile(atPath: tc)
    }
    static let ip = PortBlackhole.ip
    static let tc = PortBlackhole.tc

    /// Creates it; on any failure whatever was made is removed before the error.
    init(tag: String, rateMbit: Int) throws {
        namespace = NetworkNamespace(name: "pbmig-\(tag)-\(getpid())")
        try? PortBlackhole.run(Self.ip, ["netns", "del", namespace.name])
        try PortBlackhole.run(Self.ip, ["netns", "add", namespace.name])
        do {
            try PortBlackhole.run(Self.ip, ["-n", namespace.name, "link", "set", "lo", "up"])
            try PortBlackhole.prepare(namespace: namespace.name)
            try PortBlackhole.run(
                Self.ip,
                [
                    "netns", "exec", namespace.name, Self.tc, "qdisc", "add", "dev", "lo", "root", "tbf",
                    "rate", "\(rateMbit)mbit", "burst", "32kb", "latency", "30ms",
                ])
        } catch {
            remove()
            throw error
        }
    }

    /// Forbids every UDP packet from or to `port` in the namespace.
    func blackhole(port: UInt16) throws {
        try PortBlackhole.cut(port: Int(port), namespace: namespace.name)
    }

    /// Lets `port` through again.
    func lift(port: UInt16) throws {
        try PortBlackhole.lift(namespace: namespace.name)
    }

    func remove() { try? PortBlackhole.run(Self.ip, ["netns", "del", namespace.name]) }

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

}
