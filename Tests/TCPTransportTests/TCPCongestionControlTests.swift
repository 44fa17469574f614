import Foundation
import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import Testing
import TransportTestSupport

@testable import TCPTransport

#if canImport(Glibc)
    import Glibc
#endif

/// `congestionControl`: the controller TCP runs (TCP_CONGESTION on both ends), so tcp can
/// run quic's CUBIC instead of the host's default; the record says which ran.
@Suite("TCP congestionControl on loopback", .timeLimit(.minutes(2)))
struct TCPCongestionControlTests {
    func plugin(_ options: JSONValue) throws -> TCPPlugin {
        try TCPPlugin(options: PluginOptions(options, path: JSONPath.root.key("transports").index(0).key("options")))
    }

    func run(_ plugin: TCPPlugin) async throws -> TransportMeasurement {
        let cell = makeCell(payload: Payload(count: 50, size: 4096), probes: 3)
        let server = try await plugin.startServer(cell)
        let m = try await plugin.runClient(cell, server: server.address)
        try await server.finish()
        return m
    }

    /// reno and cubic are built into every Linux kernel (the available list here:
    /// reno bbr cubic, with bbr the host's default).
    @Test("the controller asked for is the one in force, read back into the measurement", arguments: ["reno", "cubic"])
    func asked(name: String) async throws {
        let m = try await run(try plugin(["congestionControl": .string(name)]))
        #expect(m.status == .ok, "\(m.error ?? "")")
        #expect(m.congestionControl == name)
    }

    @Test("unset, the record still says which controller ran: the host's default")
    func hostDefault() async throws {
        let m = try await run(try plugin([:]))
        let host = try String(contentsOfFile: "/proc/sys/net/ipv4/tcp_congestion_control", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(m.congestionControl == host)
    }

    /// The server applies it to its listening socket first, so the cell fails as it
    /// starts (the runner records the error as the cell's).
    @Test("a controller the kernel does not have fails the cell, naming the option and what exists")
    func unknownController() async throws {
        await #expect {
            _ = try await run(try plugin(["congestionControl": "nosuchcc"]))
        } throws: { error in
            let text = "\(error)"
            return text.contains("congestionControl \"nosuchcc\" (TCP_CONGESTION; this kernel offers ") && text.contains("cubic")
                && text.contains("tcp_nosuchcc")
        }
    }

    @Test("a name the kernel could never have is refused where the matrix is read, by JSON path")
    func badName() throws {
        #expect {
            _ = try plugin(["congestionControl": "CUBIC!"])
        } throws: { error in
            "\(error)".contains("$.transports[0].options.congestionControl: expected a congestion controller's name as the kernel spells it")
        }
    }
}
