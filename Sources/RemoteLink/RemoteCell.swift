import Foundation
public import PeerBenchJSON
public import PeerBenchPlugin
import PeerBenchTestbed

/// The JSON bodies of the control protocol's cell messages (docs/protocol/control.md,
/// "Cell messages"): CELL_REQUEST (client -> serve), SERVER_READY and SERVER_RESULT
/// (serve -> client). Keys are snake_case like the records'; unknown keys are
/// ignored, so a later version may add some.
public enum RemoteCell {
    /// CELL_REQUEST: run `transport`'s server for one cell.
    public struct Request: Sendable, Codable, Equatable {
        /// Which plugin, with which options (as the matrix states them).
        public var plugin: String
        public var label: String
        public var options: JSONValue?
        public var cellID: String
        public var repetition: Int
        /// The cell's seed, as decimal text (64 bits do not fit a JSON number).
        public var seed: String
        public var payload: Payload?
        public var rttProbes: Int
        /// How the client sends its probes (`rtt_method`); nil from a client before the
        /// key existed, which means ping-pong. The server's plugin sees it in its cell.
        public var rttMethod: RTTMethod?
        /// Seconds the server side may take; serve refuses more than its `--max-cell-seconds`.
        public var timeoutSeconds: Double
        /// The environment and distance as the client's matrix names them (for serve's log).
        public var environment: String
        public var distanceLabel: String
        public var distanceMeters: Double?
        /// The transport's Wi-Fi settings, so serve marks its sockets with the same
        /// service class as the client (null = the defaults).
        public var wifi: WifiSettings?
        /// The cell's workload as the matrix wrote it (docs/WORKLOADS.md); nil (absent)
        /// for the plain upload, and from a client before the key existed.
        public var workload: JSONValue?
        /// The application's time per message at each end (`app_loop`); nil (absent)
        /// for none, and from a client before the key existed.
        public var appLoop: AppLoop?

        enum CodingKeys: String, CodingKey {
            case plugin, label, options, cellID = "cell_id", repetition, seed, payload, rttProbes = "rtt_probes", rttMethod = "rtt_method"
            case timeoutSeconds = "timeout_seconds", environment, distanceLabel = "distance_label", distanceMeters = "distance_m", wifi, workload
            case appLoop = "app_loop"
        }

        public init(transport: TransportSpec, cell: CellContextSeed, link: ResolvedLink, timeoutSeconds: Double) {
            plugin = transport.plugin
            label = transport.label
            options = transport.options
            cellID = cell.cellID
            repetition = cell.repetition
            seed = String(cell.seed)
            payload = cell.payload
            rttProbes = cell.rttProbes
            rttMethod = cell.rttMethod
            self.timeoutSeconds = timeoutSeconds
            environment = link.environment
            distanceLabel = link.distanceLabel
            distanceMeters = link.distanceMeters
            wifi = transport.wifi
            workload = cell.workload.json
            appLoop = cell.appLoop.isNone ? nil : cell.appLoop
        }

        /// The workload, read by the matrix's rules and bounds; throws naming `$.workload`.
        func workloadSpec() throws -> WorkloadSpec {
            guard let workload else { return .upload }
            var parser = WorkloadListParser()
            guard let w = parser.entry(workload, JSONPath.root.key("workload")) else {
                throw TransportError("cell request: " + parser.problems.map(\.description).joined(separator: "; "))
            }
            return w
        }

        /// The cell as the server's plugin sees it; nil when the seed is not a 64-bit number.
        var seedValue: UInt64? { UInt64(seed) }

        /// The link the server's plugin is given: the labels only (nothing is emulated
        /// between two real hosts).
        public var link: ResolvedLink {
            ResolvedLink(environment: environment, distanceMeters: distanceMeters, distanceLabel: distanceLabel)
        }
    }

    /// SERVER_READY: the server listens; the client connects to `port` on the address
    /// it reached serve at, and hands `hello` to its plugin (`TransportServer.hello`).
    struct Ready: Sendable, Codable, Equatable {
        var port: UInt16
        var hello: JSONObject
        /// serve's interface just before the cell (`LinkInspection`), when it found the route.
        var link: InterfaceSnapshot?
        /// The cell's data-plane key (`CellDataKey`, 64 hex digits); nil from a serve
        /// before it. It travels only inside the PSK-authenticated, encrypted channel.
        var dataKey: String?
        /// SHA-256 of the certificate the cell's server presents (serve's own identity,
        /// `CertificatePin`; 64 hex digits) for quic and tls cells; nil otherwise and
        /// from a serve before it.
        var certificateSHA256: String?

        enum CodingKeys: String, CodingKey {
            case port, hello, link, dataKey = "data_key", certificateSHA256 = "certificate_sha256"
        }

        init(
            port: UInt16, hello: JSONObject, link: InterfaceSnapshot? = nil, dataKey: String? = nil,
            certificateSHA256: String? = nil
        ) {
            self.certificateSHA256 = certificateSHA256
            self.port = port
            self.hello = hello
            self.link = link
            self.dataKey = dataKey
        }
    }

    /// SERVER_RESULT: how the server side ended.
    public struct Result: Sendable, Codable, Equatable {
        /// `ok` (finished its session), `failed` (its error in `error`) or `timeout`
        /// (still running at the deadline; stopped).
        public var status: String
        public var error: String?
        /// Seconds from SERVER_READY to the end of the server's session.
        public var seconds: Double
        /// serve's interface just after the cell, when it found the route.
        public var link: InterfaceSnapshot?
        /// CPU time the server side spent, seconds (the record's `cpu_seconds.server`);
        /// nil from a serve before it.
        public var cpuSeconds: Double?

        enum CodingKeys: String, CodingKey {
            case status, error, seconds, link, cpuSeconds = "cpu_seconds"
        }

        public init(status: String, error: String? = nil, seconds: Double, link: InterfaceSnapshot? = nil, cpuSeconds: Double? = nil) {
            self.cpuSeconds = cpuSeconds
            self.status = status
            self.error = error
            self.seconds = seconds
            self.link = link
        }
    }
}

extension RemoteCell {
    /// Encodes a body for a control message.
    public static func encode<T: Encodable>(_ body: T) -> JSONValue { (try? JSONCoding.encode(body)) ?? .null }

    /// Decodes a body, naming `what` and the JSON path at fault.
    public static func decode<T: Decodable>(_ type: T.Type, from json: JSONValue, _ what: String) throws -> T {
        do { return try JSONCoding.decode(type, from: json) } catch {
            throw TransportError("\(what) not understood: \(JSONCoding.describe(error))")
        }
    }
}

/// Seconds as a log or message shows them: an integer when whole, else up to three decimals.
func seconds(_ s: Double) -> String {
    s == s.rounded() && abs(s) < 1e15 ? String(Int(s)) : String(format: "%.3g", s)
}
