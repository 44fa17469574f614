import CPeerBenchSystem  // sockets' constants, whichever clang module ends up owning them
import Foundation
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `Endpoint.bindServer`, through which every plugin's server binds: a port from the
/// range, and with `allowedPeer` nothing from any other address reaches the socket
/// (so nothing is ever sent back to it). Two namespaces joined by veth; the client's
/// host has a second address, the stranger.
@Suite(.serialized) struct ServeDataPortTests {
    static let ports: ClosedRange<UInt16> = 40_100...40_104

    /// Receives one datagram's text within `seconds`, nil if none came.
    static func receive(_ s: Socket, seconds: Double) throws -> String? {
        try s.setReceiveTimeout(nanoseconds: UInt64(seconds * 1e9))
        var buf = [UInt8](repeating: 0, count: 64)
        guard let n = try buf.withUnsafeMutableBytes({ try s.receive($0) }) else { return nil }
        return String(decoding: buf[..<n], as: UTF8.self)
    }

    /// Sends `text` to `to` from a UDP socket bound on `from` in `ns`.
    static func send(_ text: String, from: String, to: SocketAddress, in ns: NetworkNamespace) async throws {
        try await BlockingThread.run(name: "send", namespace: ns) {
            let s = try Socket(family: AF_INET, type: Int32(SOCK_DGRAM.rawValue))
            defer { s.close() }
            try s.bind(SocketAddress(host: from, port: 0))
            _ = try Array(text.utf8).withUnsafeBytes { try s.send($0, to: to) }
        }
    }

    @Test func datagramsFromAnyOtherAddressNeverReachTheSocket() async throws {
        let hosts = try VethHosts()
        defer { hosts.remove() }
        let endpoint = Endpoint(address: hosts.serverAddress, namespace: hosts.server, allowedPeer: hosts.clientAddress, dataPorts: Self.ports)
        let (socket, bound) = try await endpoint.run("bind") { () throws -> (Socket, SocketAddress) in
            let s = try Socket(family: AF_INET, type: Int32(SOCK_DGRAM.rawValue))
            return (s, try endpoint.bindServer(s))
        }
        defer { socket.close() }
        #expect(Self.ports.contains(bound.port))
        #expect(bound.host == hosts.serverAddress)
        try await Self.send("stranger", from: hosts.strangerAddress, to: bound, in: hosts.client)
        try await Self.send("client", from: hosts.clientAddress, to: bound, in: hosts.client)
        let first = try await endpoint.run("recv") { try Self.receive(socket, seconds: 2) }
        #expect(first == "client")
        let second = try await endpoint.run("recv") { try Self.receive(socket, seconds: 0.5) }
        #expect(second == nil, "the stranger's datagram reached the server: \(second ?? "")")
    }

    /// The same exchange without `allowedPeer` delivers the stranger's datagram: the
    /// test above fails if the filter does nothing.
    @Test func withoutAnAllowedPeerTheStrangerGetsThrough() async throws {
        let hosts = try VethHosts()
        defer { hosts.remove() }
        let endpoint = Endpoint(address: hosts.serverAddress, namespace: hosts.server, dataPorts: Self.ports)
        let (socket, bound) = try await endpoint.run("bind") { () throws -> (Socket, SocketAddress) in
            let s = try Socket(family: AF_INET, type: Int32(SOCK_DGRAM.rawValue))
            return (s, try endpoint.bindServer(s))
        }
        defer { socket.close() }
        try await Self.send("stranger", from: hosts.strangerAddress, to: bound, in: hosts.client)
        let first = try await endpoint.run("recv") { try Self.receive(socket, seconds: 2) }
        #expect(first == "stranger")
    }

    @Test func aListenerNeverAnswersAnotherAddressesSyn() async throws {
        let hosts = try VethHosts()
        defer { hosts.remove() }
        let endpoint = Endpoint(address: hosts.serverAddress, namespace: hosts.server, allowedPeer: hosts.clientAddress, dataPorts: Self.ports)
        let (listener, bound) = try await endpoint.run("listen") { () throws -> (Socket, SocketAddress) in
            let s = try Socket(family: AF_INET, type: Int32(SOCK_STREAM.rawValue))
            let a = try endpoint.bindServer(s)
            try s.listen(backlog: 4)
            return (s, a)
        }
        defer { listener.close() }
        func connect(from: String) async -> Bool {
            (try? await BlockingThread.run(name: "connect", namespace: hosts.client) { () throws -> Bool in
                let s = try Socket(family: AF_INET, type: Int32(SOCK_STREAM.rawValue))
                defer { s.close() }
                try s.bind(SocketAddress(host: from, port: 0))
                try s.setSendTimeout(nanoseconds: 1_000_000_000)  // bounds connect()
                try s.connect(bound)
                return true
            }) ?? false
        }
        #expect(await connect(from: hosts.strangerAddress) == false)
        #expect(await connect(from: hosts.clientAddress) == true)
    }

    @Test func everyPortOfTheRangeTakenIsAClearError() async throws {
        let hosts = try VethHosts()
        defer { hosts.remove() }
        let endpoint = Endpoint(address: hosts.serverAddress, namespace: hosts.server, dataPorts: 40_110...40_111)
        let message = try await endpoint.run("bind") { () throws -> String in
            let held = try (0..<2).map { _ in
                let s = try Socket(family: AF_INET, type: Int32(SOCK_DGRAM.rawValue))
                _ = try endpoint.bindServer(s)
                return s
            }
            defer { held.forEach { $0.close() } }
            let third = try Socket(family: AF_INET, type: Int32(SOCK_DGRAM.rawValue))
            defer { third.close() }
            do {
                _ = try endpoint.bindServer(third)
                return "bound"
            } catch { return "\(error)" }
        }
        #expect(message == "no free data port in 40110-40111 on \(hosts.serverAddress)")
    }
}
