import PeerBenchCore
import PeerBenchPlugin
import RemoteLink
import Testing

/// The matrix's `rttMethod` reaches the serving host with the cell request; a request
/// from a client before the key has none, which serve runs as ping-pong.
@Suite struct RTTMethodRemoteRequestTests {
    @Test func theCellRequestCarriesTheRTTMethod() throws {
        var r = ServeLimitsTests.request()
        r.rttMethod = .pipelined
        let json = RemoteCell.encode(r)
        #expect(json["rtt_method"] == "pipelined")
        #expect(try RemoteCell.decode(RemoteCell.Request.self, from: json, "CELL_REQUEST").rttMethod == .pipelined)
        // An older client's request: no key.
        var old = try #require(json.objectValue)
        old["rtt_method"] = nil
        #expect(try RemoteCell.decode(RemoteCell.Request.self, from: .object(old), "CELL_REQUEST").rttMethod == nil)
        // A method this serve does not know is refused, naming the key.
        old["rtt_method"] = "burst"
        #expect { try RemoteCell.decode(RemoteCell.Request.self, from: .object(old), "CELL_REQUEST") } throws: {
            "\($0)".contains("rtt_method")
        }
    }
}
