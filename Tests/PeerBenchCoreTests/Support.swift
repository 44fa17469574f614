import Foundation
import Glibc
import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchTestbed

/// Test doubles for logic around plugins: the runner and validation only need a
/// plugin's declared behaviour, not a real transport.
struct FakeLinkModel: LinkModel {
    var builtInEnvironments: [String] { ["underground", "inner-city", "free-field", "forest"] }
    func validateProfile(_ profile: JSONValue, path: JSONPath) -> [InputProblem] {
        profile.objectValue == nil ? [InputProblem(path: path.description, "expected an object")] : []
    }
    func resolve(environment: String, profile: JSONValue?, distance: Double?, distanceLabel: String) throws -> ResolvedLink {
        var l = ResolvedLink(environment: environment, distanceMeters: distance ?? 100, distanceLabel: distanceLabel)
        l.connected = (distance ?? 0) < 500
        return l
    }
    func describe() -> [String] { [] }
}

/// A plugin whose client behaves as told: `ok` returns fixed figures, `throw` fails,
/// `hang` blocks in a real recv() until the runner's cancellation shuts the socket.
struct ScriptedPlugin: TransportPlugin {
    enum Behavior: String, CaseIterable { case ok, `throw`, hang, hangIgnoringCancel }
    static let descriptor = PluginDescriptor(
        name: "scripted", summary: "test plugin",
        options: [
            OptionDescriptor("behavior", type: "string", default: "ok", help: "what the client does"),
            OptionDescriptor("maxSize", type: "integer", default: "65507", help: "largest payload size"),
        ])
    let behavior: Behavior
    let maxSize: Int

    init(options: PluginOptions) throws {
        behavior = try options.choice("behavior", default: .ok)
        maxSize = try options.int("maxSize", default: 65_507, range: 1...Int.max)
    }

    func check(payload: Payload, path: JSONPath) -> [InputProblem] {
        payload.size > maxSize ? [InputProblem(path: path.description, "size \(payload.size) is above \(maxSize)")] : []
    }

    struct Server: TransportServer {
        var address = SocketAddress(host: "127.0.0.1", port: 9)
        func finish() async throws {}
        func stop() {}
    }

    func startServer(_ cell: CellContext) async throws -> any TransportServer { Server() }

    func runClient(_ cell: CellContext, server: SocketAddress) async throws -> TransportMeasurement {
        switch behavior {
        case .ok:
            var m = TransportMeasurement()
            m.connectNanos = 1_000_000
            m.rttNanos = [1_000_000, 2_000_000, 3_000_000]
            m.bulkNanos = 1_000_000_000
            m.delivery = Delivery(sentMessages: 10, receivedMessages: 10, sentBytes: 1_250_000, receivedBytes: 1_250_000)
            return m
        case .throw:
            throw TransportError("scripted failure")
        case .hang, .hangIgnoringCancel:
            let ignore = behavior == .hangIgnoringCancel
            return try await cell.client.run("hang") {
                let s = try Socket(family: AF_INET, type: Int32(SOCK_DGRAM.rawValue))
                try s.bind(SocketAddress(host: "127.0.0.1", port: 0))
                if !ignore { cell.cancellation.register(s) }
                var buf = [UInt8](repeating: 0, count: 16)
                _ = try buf.withUnsafeMutableBytes { try s.receive($0) }
                throw TransportError("receive returned")
            }
        }
    }
}

/// Same descriptor shape as the field-study plugins, for expansion counts.
struct NamedPlugin<Tag: PluginTag>: TransportPlugin {
    static var descriptor: PluginDescriptor { PluginDescriptor(name: Tag.name, summary: "", options: [], usesPayload: Tag.usesPayload) }
    init(options: PluginOptions) throws {
        _ = try options.bool("noDelay", default: false)
        _ = try options.object("keepAlive").int("idleSeconds", default: 2, range: 1...100)
        _ = try options.string("congestionControl", default: nil)
    }
    func startServer(_ cell: CellContext) async throws -> any TransportServer { ScriptedPlugin.Server() }
    func runClient(_ cell: CellContext, server: SocketAddress) async throws -> TransportMeasurement { TransportMeasurement() }
    /// The stand-in tcp runs every workload, as the real one does; the others keep the default (the upload only).
    func check(workload: WorkloadSpec, path: JSONPath) -> [InputProblem] {
        Tag.name == "tcp" || workload.isUpload
            ? []
            : [InputProblem(path: path.description, "\(Tag.name): the \(workload.kindName) workload is unsupported by this transport")]
    }
}
protocol PluginTag: Sendable {
    static var name: String { get }
    static var usesPayload: Bool { get }
}
enum TCPTag: PluginTag {
    static let name = "tcp"
    static let usesPayload = true
}
enum UDPTag: PluginTag {
    static let name = "udp"
    static let usesPayload = true
}
enum QUICTag: PluginTag {
    static let name = "quic"
    static let usesPayload = true
}
enum UWBTag: PluginTag {
    static let name = "uwb"
    static let usesPayload = false
}

let fieldStudyRegistry = PluginRegistry([
    NamedPlugin<TCPTag>.self, NamedPlugin<UDPTag>.self, NamedPlugin<QUICTag>.self,
    NamedPlugin<UWBTag>.self, ScriptedPlugin.self,
])
let loader = MatrixLoader(registry: fieldStudyRegistry, linkModel: FakeLinkModel())

/// The package root, found from this file's location.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

func parse(_ text: String) throws -> Matrix { try loader.parse(Array(text.utf8)) }

/// The problems a matrix text produces (empty when valid).
func problems(_ text: String) -> [InputProblem] {
    do {
        _ = try parse(text)
        return []
    } catch let e as InputError { return e.problems } catch { return [InputProblem(path: nil, "\(error)")] }
}

func matrixText(
    transports: String = #"[{"plugin": "scripted", "label": "s"}]"#, environments: String = #"["forest"]"#,
    distances: String = "[1]", counts: String = "[10]", sizes: String = "[128]", extra: String = ""
) -> String {
    """
    {\(extra)"transports": \(transports),
     "matrix": {"environments": \(environments), "distances": \(distances), "payloads": {"counts": \(counts), "sizes": \(sizes)}}}
    """
}
