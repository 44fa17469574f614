import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchTestbed

/// The messages between the runner and its worker process: one JSON object per line,
/// each a typed `Codable` value (request: runner -> worker on the worker's stdin;
/// reply: worker -> runner on its protocol pipe). Everything a type holds crosses, so a
/// field added to `TransportMeasurement` or `ResolvedLink` reaches the record the same
/// way with or without process isolation. Only plain data crosses: the link's opaque
/// channel model stays with the emulator in the parent.
public struct CellRequest: Sendable, Codable {
    public var transport: TransportSpec
    public var cell: CellContextSeed
    /// Seconds the plugin part may take.
    public var timeoutSeconds: Double
    /// The cell's timeout as the matrix states it, for messages.
    public var cellTimeoutSeconds: Double
    public var link: ResolvedLink
    public var client: Endpoint
    public var server: Endpoint
    /// A server already running on the peer host (`--link remote`): the worker runs the client only.
    public var started: StartedServer?

    public init(
        transport: TransportSpec, cell: CellContextSeed, timeoutSeconds: Double, cellTimeoutSeconds: Double,
        link: ResolvedLink, client: Endpoint, server: Endpoint, started: StartedServer? = nil
    ) {
        self.transport = transport
        self.cell = cell
        self.timeoutSeconds = timeoutSeconds
        self.cellTimeoutSeconds = cellTimeoutSeconds
        self.link = link
        self.client = client
        self.server = server
        self.started = started
    }

    /// Where the worker's plugin gets its server from.
    public var source: ServerSource { started.map { .started($0) } ?? .plugin }

    enum CodingKeys: String, CodingKey {
        case transport, cell, timeoutSeconds = "timeout_seconds", cellTimeoutSeconds = "cell_timeout_seconds", link, client, server
        case started = "started_server"
    }

    /// The request line. Encoding fails only for an integer beyond 2^53, which no
    /// request holds (seeds travel as text); such a request would reach the worker as
    /// `null` and be refused there with a message.
    public var json: JSONValue { (try? JSONCoding.encode(self)) ?? .null }

    public init(json: JSONValue) throws {
        do { self = try JSONCoding.decode(CellRequest.self, from: json) } catch {
            throw TransportError("worker request: \(JSONCoding.describe(error))")
        }
    }
}
