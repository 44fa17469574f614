import PeerBenchJSON
import PeerBenchPlugin
import Testing

@testable import UDPTransport

/// What the client takes from the server's hello: exactly N - 1 ports, each in range.
@Suite("UDP parallel flows: the server hello's ports")
struct UDPParallelFlowPortsTests {
    @Test("a hello without enough valid ports is refused by name; a good one is read as sent")
    func ports() throws {
        let good = JSONObject([UDPParallelFlows.portsKey: .array([JSONValue(4000), JSONValue(4001), JSONValue(65_535)])])
        #expect(try UDPParallelFlows.ports(good, flows: 4) == [4000, 4001, 65_535])
        for bad: JSONValue in [
            .array([JSONValue(4000), JSONValue(0), JSONValue(4002)]), .array([JSONValue(4000), JSONValue(70_000), JSONValue(1)]),
            .array([JSONValue(4000)]), .string("4000"), .null,
        ] {
            let error = #expect(throws: TransportError.self) { try UDPParallelFlows.ports(JSONObject([UDPParallelFlows.portsKey: bad]), flows: 4) }
            #expect(error.map { "\($0)" }?.contains("flow_ports") == true)
        }
        #expect(throws: TransportError.self) { try UDPParallelFlows.ports(JSONObject(), flows: 2) }
    }

    @Test("the messages are dealt as tcp deals them: the first count % N flows carry one more")
    func shares() {
        let p = Payload(count: 402, size: 10)
        #expect((0..<4).map { p.share(flow: $0, of: 4).count } == [101, 101, 100, 100])
        #expect((0..<4).map { Payload(count: 2, size: 1).share(flow: $0, of: 4).count } == [1, 1, 0, 0])
    }
}
