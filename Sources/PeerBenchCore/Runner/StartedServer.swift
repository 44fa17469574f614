import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchTestbed

/// A server started elsewhere, as its client sees it: where it listens and what it
/// said. Its session ends on its own host; `finish` here has nothing to wait for.
public struct StartedServer: TransportServer, Codable {
    public var address: SocketAddress
    public var hello: JSONObject

    public init(address: SocketAddress, hello: JSONObject) {
        self.address = address
        self.hello = hello
    }

    public func finish() async throws {}
    public func stop() {}

    enum CodingKeys: String, CodingKey { case host, port, hello }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        address = SocketAddress(host: try c.decode(String.self, forKey: .host), port: try c.decode(UInt16.self, forKey: .port))
        hello = try c.decode(JSONObject.self, forKey: .hello)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(address.host, forKey: .host)
        try c.encode(address.port, forKey: .port)
        try c.encode(hello, forKey: .hello)
    }
}
