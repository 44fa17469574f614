import Foundation
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSockets
import QUICTransport
import TCPTransport
import TLSTransport
import Testing
import UDPTransport

/// The application's loops (`CellContext.appLoop`) in the plugins that honour them, over
/// loopback. What is asserted is what the app's clock decides, so it holds on a loaded
/// host: a receiver taking one message per cost cannot span less than (n - 1) costs, a
/// sender handing one over per cost cannot finish sooner, and a receiver slower than its
/// sender fills its socket's buffer, which for datagrams drops what overflows.
@Suite(.timeLimit(.minutes(5))) struct AppLoopPluginTests {
    static let plugins = ["tcp", "tls", "udp", "quic"]

    static func plugin(_ name: String, udp: UDPOptions = UDPOptions()) throws -> any TransportPlugin {
        switch name {
        case "tcp": return TCPPlugin(TCPOptions())
        case "tls": return TLSPlugin(TLSOptions())
        case "udp": return UDPPlugin(udp)
        default: return try QUICPlugin(options: PluginOptions(.object(JSONObject()), path: .root))
        }
    }

    static func run(_ plugin: any TransportPlugin, _ cell: CellContext) async throws -> TransportMeasurement {
        let server = try await plugin.startServer(cell)
        var c = cell
        c.serverHello = server.hello
        let m = try await plugin.runClient(c, server: server.address)
        try await server.finish()
        return m
    }

    static func cell(count: Int, probes: Int, loop: AppLoop) -> CellContext {
        var cell = CellContext.loopback(payload: Payload(count: count, size: 128), rttProbes: probes, timeoutSeconds: 60)
        cell.rttMethod = .sendLoop
        cell.appLoop = loop
        return cell
    }

    /// The server takes 1 000 messages 200 µs apart and 20 pipelined probes likewise, so
    /// the receiver's span is at least 999 x 200 µs and the last probe's echo leaves at
    /// least 19 x 200 µs after the first one's.
    @Test("a receiving app takes one message per receive cost", arguments: plugins)
    func receiverTakesOneMessagePerCost(_ name: String) async throws {
        let m = try await Self.run(try Self.plugin(name), Self.cell(count: 1_000, probes: 20, loop: AppLoop(receiveNanos: 200_000)))
        #expect(m.status == .ok, "\(name): \(m.error ?? "")")
        #expect(m.delivery?.receivedMessages == 1_000)
        let span = Double(try #require(m.receiverSpanNanos)) / 1e6
        #expect(span >= 999 * 0.2, "\(name): receiver span \(span) ms")
        #expect(m.rttNanos.count == 20)
        let slowest = Double(m.rttNanos.max() ?? 0) / 1e6
        #expect(slowest >= 19 * 0.2, "\(name): slowest of 20 pipelined probes \(slowest) ms")
        #expect(m.extra[AppLoop.extraKey]?.compactText.contains(#""receive_us":200"#) == true, "\(m.extra)")
    }

    /// The client hands 500 messages over 200 µs apart: the last cannot reach the
    /// receiver less than 499 x 200 µs after the first. The span is taken where the
    /// receiver reads, so a receiver that wakes late to the first message shortens it:
    /// three quarters of the loop's time bound it, above what the same 500 messages span
    /// unpaced (asserted here; 2026-12-07: udp 1.2 ms, quic 8.3, tcp 41 and tls 44, Nagle
    /// waiting out loopback's delayed ACK).
    @Test("a sending app hands one message over per send cost", arguments: plugins)
    func senderHandsOneMessagePerCost(_ name: String) async throws {
        let m = try await Self.run(try Self.plugin(name), Self.cell(count: 500, probes: 1, loop: AppLoop(sendNanos: 200_000)))
        #expect(m.status == .ok, "\(name): \(m.error ?? "")")
        let span = Double(try #require(m.receiverSpanNanos)) / 1e6
        #expect(span >= 499 * 0.2 * 0.75, "\(name): receiver span \(span) ms")
        let unpaced = try await Self.run(try Self.plugin(name), Self.cell(count: 500, probes: 1, loop: AppLoop()))
        let unpacedSpan = Double(try #require(unpaced.receiverSpanNanos)) / 1e6
        #expect(unpacedSpan < 499 * 0.2 * 0.75, "\(name): unpaced span \(unpacedSpan) ms, not told apart by the bound")
        let bulk = Double(try #require(m.bulkNanos)) / 1e6
        #expect(bulk >= 499 * 0.2, "\(name): bulk \(bulk) ms")
    }

    /// A udp receiver at 100 µs a message behind an unpaced sender: with a small socket
    /// buffer the kernel drops most of 3 000 datagrams, with the default 16 MiB none.
    @Test func udpReceiverSlowerThanItsSenderOverflowsItsBuffer() async throws {
        let loop = AppLoop(receiveNanos: 100_000)
        var small = UDPOptions()
        small.receiveBufferBytes = 4_096
        let dropped = try await Self.run(UDPPlugin(small), Self.cell(count: 3_000, probes: 1, loop: loop))
        let got = try #require(dropped.delivery?.receivedMessages)
        #expect(got < 1_500, "received \(got) of 3 000 through a 4 KiB buffer")
        let whole = try await Self.run(UDPPlugin(UDPOptions()), Self.cell(count: 3_000, probes: 1, loop: loop))
        #expect(whole.delivery?.receivedMessages == 3_000, "\(whole.delivery.map { "\($0)" } ?? "nil")")
    }
}
