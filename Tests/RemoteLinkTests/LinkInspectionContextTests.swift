import Foundation
import PeerBenchCore
import Testing

@testable import RemoteLink

@Suite struct LinkInspectionContextTests {
    static func counters(rxP: UInt64, txP: UInt64, rxB: UInt64, txB: UInt64, rxD: UInt64 = 0, txD: UInt64 = 0) -> InterfaceCounters {
        InterfaceCounters(rxPackets: rxP, txPackets: txP, rxBytes: rxB, txBytes: txB, rxDropped: rxD, txDropped: txD, rxErrors: 0, txErrors: 0)
    }

    static let route = LinkRoute(
        peer: "10.0.0.2", interface: "wlan0", interfaceIndex: 3, source: "10.0.0.1", gateway: nil,
        mtu: 1500, pathMTU: 1500)

    /// A remote cell's link before the context is filled (Record.Link has no public init).
    static func emptyLink() -> Record.Link {
        try! JSONDecoder().decode(Record.Link.self, from: Data(#"{"mode": "remote"}"#.utf8))
    }

    @Test func bothEndsGiveUpDownAndDropsFromBothSides() {
        let client = (
            before: InterfaceSnapshot(
                name: "wlan0", counters: Self.counters(rxP: 100, txP: 200, rxB: 10_000, txB: 20_000, rxD: 1, txD: 2),
                station: WirelessStation(signalDbm: -60, noiseDbm: -92, txMCS: 5, txBitrateMbps: 300)),
            after: InterfaceSnapshot(
                name: "wlan0", counters: Self.counters(rxP: 150, txP: 1_200, rxB: 15_000, txB: 1_520_000, rxD: 4, txD: 2),
                station: WirelessStation(signalDbm: -62, noiseDbm: -92, txMCS: 7, txBitrateMbps: 433.3))
        )
        let server = (
            before: InterfaceSnapshot(name: "wlp2s0", counters: Self.counters(rxP: 0, txP: 0, rxB: 0, txB: 0), station: nil),
            after: InterfaceSnapshot(
                name: "wlp2s0", counters: Self.counters(rxP: 990, txP: 60, rxB: 1_480_000, txB: 6_000, rxD: 7, txD: 1),
                station: WirelessStation(signalDbm: -58, txMCS: 4, txBitrateMbps: 260))
        )
        var link = Self.emptyLink()
        RemoteLinkContext.fill(&link, route: Self.route, pathMTU: 1480, client: client, server: server)
        #expect(link.interface == "wlan0")
        #expect(link.peerAddress == "10.0.0.2")
        #expect(link.pathMtu == 1480)  // the data socket's, over the route's
        #expect(link.mtu == 1500)
        #expect(link.packetsUp == 1_000)  // client tx
        #expect(link.bytesUp == 1_500_000)
        #expect(link.packetsDown == 60)  // server tx
        #expect(link.bytesDown == 6_000)
        #expect(link.dropsUp == 0 + 7)  // client tx drops + server rx drops
        #expect(link.dropsDown == 1 + 3)  // server tx drops + client rx drops
        #expect(link.rssiDbm == -60)  // mean of -62 (client, after) and -58 (server)
        #expect(link.snrDb == 30)  // only the client has noise: -62 - (-92)
        #expect(link.mcs == 7)  // the client's tx rate after the cell
        #expect(link.phyRateMbps == 433.3)
    }

    @Test func clientOnlyUsesItsReceiveCountsDownAndLeavesDropsNull() {
        let client = (
            before: InterfaceSnapshot(name: "eth0", counters: Self.counters(rxP: 10, txP: 10, rxB: 100, txB: 100), station: nil),
            after: InterfaceSnapshot(name: "eth0", counters: Self.counters(rxP: 40, txP: 25, rxB: 400, txB: 250, rxD: 9), station: nil)
        )
        var link = Self.emptyLink()
        link.peerAddress = "peer.example"
        RemoteLinkContext.fill(&link, route: Self.route, pathMTU: nil, client: client, server: nil)
        #expect(link.peerAddress == "peer.example")  // what the runner set stays
        #expect(link.pathMtu == 1500)  // the route's, without a data socket
        #expect(link.packetsUp == 15)
        #expect(link.packetsDown == 30)
        #expect(link.bytesDown == 300)
        #expect(link.dropsUp == nil)
        #expect(link.dropsDown == nil)
        #expect(link.rssiDbm == nil)
        #expect(link.snrDb == nil)
        #expect(link.mcs == nil)
        #expect(link.phyRateMbps == nil)
    }

    @Test func countersThatWentBackwardsOrAreMissingStayNull() {
        let reset = (
            before: InterfaceSnapshot(name: "wlan0", counters: Self.counters(rxP: 500, txP: 500, rxB: 5_000, txB: 5_000), station: nil),
            after: InterfaceSnapshot(name: "wlan0", counters: Self.counters(rxP: 3, txP: 3, rxB: 30, txB: 30), station: nil)
        )
        let missing = (
            before: InterfaceSnapshot(name: "wlan9", counters: nil, station: nil),
            after: InterfaceSnapshot(name: "wlan9", counters: nil, station: nil)
        )
        var link = Self.emptyLink()
        RemoteLinkContext.fill(&link, route: Self.route, pathMTU: nil, client: reset, server: missing)
        #expect(link.packetsUp == nil)
        #expect(link.bytesUp == nil)
        #expect(link.packetsDown == nil)
        #expect(link.dropsUp == nil)
    }
}

@Suite struct LinkInspectionCodingTests {
    /// Snapshots cross the control channel as JSON (the server's before/after): the
    /// keys are snake_case like the records', and a snapshot survives the trip.
    @Test func snapshotsRoundTripThroughJSONWithSnakeCaseKeys() throws {
        let snapshot = InterfaceSnapshot(
            name: "wlan0",
            counters: InterfaceCounters(
                rxPackets: 1, txPackets: 2, rxBytes: 3, txBytes: 4, rxDropped: 5,
                txDropped: 6, rxErrors: 7, txErrors: 8),
            station: WirelessStation(
                mac: "02:00:00:00:00:01", signalDbm: -61, noiseDbm: -95, txMCS: 9,
                txBitrateMbps: 866.7, frequencyMHz: 5180))
        let data = try JSONEncoder().encode(snapshot)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#""rx_packets":1"#))
        #expect(text.contains(#""signal_dbm":-61"#))
        #expect(text.contains(#""tx_bitrate_mbps":866.7"#))
        #expect(try JSONDecoder().decode(InterfaceSnapshot.self, from: data) == snapshot)
    }
}
