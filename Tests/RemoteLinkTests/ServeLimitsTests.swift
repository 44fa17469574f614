import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchTestbed
import Testing

@testable import RemoteLink

/// What serve refuses before anything runs, and how the peer's address is read.
@Suite struct ServeLimitsTests {
    /// Stand-ins with the real plugins' names: only their names matter to the check.
    struct Named: TransportPlugin {
        static let descriptor = PluginDescriptor(name: "tcp", summary: "stand-in", options: [])
        init(options: PluginOptions) throws {}
        func startServer(_ cell: CellContext) async throws -> any TransportServer { throw TransportError("not run") }
        func runClient(_ cell: CellContext, server: SocketAddress) async throws -> TransportMeasurement { throw TransportError("not run") }
    }
    struct Exec: TransportPlugin {
        static let descriptor = PluginDescriptor(name: "exec", summary: "stand-in", options: [])
        init(options: PluginOptions) throws {}
        func startServer(_ cell: CellContext) async throws -> any TransportServer { throw TransportError("not run") }
        func runClient(_ cell: CellContext, server: SocketAddress) async throws -> TransportMeasurement { throw TransportError("not run") }
    }

    static let registry = PluginRegistry([Named.self, Exec.self])

    static func request(_ plugin: String = "tcp", timeout: Double = 30, payload: Payload? = Payload(count: 100, size: 128)) -> RemoteCell.Request {
        let json = #"{"plugin": "\#(plugin)", "label": "\#(plugin)", "effective_options": null, "uses_payload": true, "index": 0}"#
        let spec = try! JSONCoding.decode(TransportSpec.self, from: try! JSONParser.parse(Array(json.utf8)))
        return RemoteCell.Request(
            transport: spec, cell: CellContextSeed(cellID: "c", repetition: 1, seed: .max, payload: payload, rttProbes: 10),
            link: ResolvedLink(environment: "lab", distanceMeters: 3, distanceLabel: "3"), timeoutSeconds: timeout)
    }

    static func refusal(_ r: RemoteCell.Request, _ limits: ServeLimits = ServeLimits()) -> String? {
        do {
            try ServeCell.check(r, registry: registry, limits: limits)
            return nil
        } catch { return "\(error)" }
    }

    @Test func aRequestWithinTheLimitsPasses() {
        #expect(Self.refusal(Self.request()) == nil)
        // The field study's largest cell fits the default payload limit.
        #expect(Self.refusal(Self.request(payload: Payload(count: 100_000, size: 16_384))) == nil)
    }

    @Test func unknownPluginsLongCellsAndBigPayloadsAreRefusedSayingWhichLimit() {
        #expect(Self.refusal(Self.request("sctp")) == "this serve has no plugin \"sctp\" (it has: exec, tcp)")
        var limits = ServeLimits()
        limits.maxCellSeconds = 60
        #expect(Self.refusal(Self.request(timeout: 61), limits)?.contains("--max-cell-seconds") == true)
        #expect(Self.refusal(Self.request(timeout: 60), limits) == nil)
        limits.maxPayloadBytes = 1_000_000
        #expect(Self.refusal(Self.request(payload: Payload(count: 1_000, size: 1_001)), limits)?.contains("--max-payload-bytes") == true)
        #expect(Self.refusal(Self.request(payload: Payload(count: .max, size: 2)), limits)?.contains("--max-payload-bytes") == true)
        #expect(Self.refusal(Self.request(payload: Payload(count: 1_000, size: 1_000)), limits) == nil)
    }

    @Test func execRunsOnlyWhenServeAllowsIt() {
        #expect(Self.refusal(Self.request("exec"))?.contains("--allow-exec") == true)
        var limits = ServeLimits()
        limits.allowExec = true
        #expect(Self.refusal(Self.request("exec"), limits) == nil)
    }

    @Test func theCellRequestBodyRoundTripsWithItsSeedAsText() throws {
        let r = Self.request()
        let json = RemoteCell.encode(r)
        #expect(json["seed"]?.stringValue == "18446744073709551615")
        #expect(json["timeout_seconds"] != nil && json["cell_id"]?.stringValue == "c")
        #expect(try RemoteCell.decode(RemoteCell.Request.self, from: json, "CELL_REQUEST") == r)
        var voice = Self.request()
        voice.wifi = WifiSettings(performanceMode: .realtime, serviceClass: .interactiveVoice)
        let voiceJSON = RemoteCell.encode(voice)
        #expect(voiceJSON["wifi"]?["serviceClass"]?.stringValue == "interactiveVoice")
        #expect(try RemoteCell.decode(RemoteCell.Request.self, from: voiceJSON, "CELL_REQUEST").wifi == voice.wifi)
        let bad = try JSONParser.parse(Array(#"{"plugin": "tcp"}"#.utf8))
        #expect(throws: TransportError.self) { try RemoteCell.decode(RemoteCell.Request.self, from: bad, "CELL_REQUEST") }
    }

    @Test func peerAddressesInEveryForm() throws {
        #expect(try RemotePeer.resolve("10.0.0.2", option: "--peer") == SocketAddress(host: "10.0.0.2", port: ServeLimits.defaultPort))
        #expect(try RemotePeer.resolve("10.0.0.2:9000", option: "--peer") == SocketAddress(host: "10.0.0.2", port: 9000))
        #expect(try RemotePeer.resolve("[fe80::1]:9000", option: "--peer") == SocketAddress(host: "fe80::1", port: 9000))
        #expect(try RemotePeer.resolve("::1", option: "--peer") == SocketAddress(host: "::1", port: ServeLimits.defaultPort))
        #expect(try RemotePeer.resolve("localhost:7", option: "--peer").port == 7)
        #expect(RemotePeer.numeric("::ffff:10.1.2.3") == "10.1.2.3")
        for bad in ["", "10.0.0.2:0", "10.0.0.2:70000", "[::1", "[::1]x", ":80"] {
            #expect(throws: InputError.self, "\(bad)") { try RemotePeer.resolve(bad, option: "--peer") }
        }
        do { _ = try RemotePeer.resolve("10.0.0.2:http", option: "--peer") } catch {
            #expect(error.description.contains("--peer") && error.description.contains("\"http\""), "\(error.description)")
        }
    }
}
