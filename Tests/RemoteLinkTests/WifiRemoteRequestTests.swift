import PeerBenchCore
import PeerBenchPlugin
import RemoteLink
import Testing

/// The transport's `wifi` reaches the serving host with the cell request, so the
/// server's sockets carry the same service class as the client's.
@Suite struct WifiRemoteRequestTests {
    @Test func theCellRequestCarriesTheWifiSettings() throws {
        var r = ServeLimitsTests.request()
        #expect(r.wifi == nil)
        #expect(RemoteCell.encode(r)["wifi"] == nil || RemoteCell.encode(r)["wifi"] == .null)
        r.wifi = WifiSettings(performanceMode: .realtime, serviceClass: .interactiveVoice)
        let json = RemoteCell.encode(r)
        #expect(json["wifi"]?["serviceClass"]?.stringValue == "interactiveVoice")
        #expect(try RemoteCell.decode(RemoteCell.Request.self, from: json, "CELL_REQUEST").wifi == r.wifi)
    }
}
