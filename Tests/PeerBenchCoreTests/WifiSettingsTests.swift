import Foundation
import PeerBenchTestbed
import Testing

@testable import PeerBenchCore
@testable import PeerBenchPlugin
@testable import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The `wifi` object of a transport entry: parsing, its errors, the cell id, and the
/// marking of every socket a cell's scopes see.
@Suite struct WifiSettingsTests {
    @Test func parsedWithPlatformDefaults() throws {
        let m = try parse(
            matrixText(
                transports: #"""
                    [{"plugin": "tcp", "label": "plain"},
                     {"plugin": "tcp", "label": "rt", "wifi": {"performanceMode": "realtime", "serviceClass": "interactiveVideo"}},
                     {"plugin": "tcp", "label": "bk", "wifi": {"serviceClass": "background"}}]
                    """#))
        #expect(m.transports[0].wifi == nil)
        #expect(m.transports[0].effectiveWifi == WifiSettings(performanceMode: .bulk, serviceClass: .bestEffort))
        #expect(m.transports[1].wifi == WifiSettings(performanceMode: .realtime, serviceClass: .interactiveVideo))
        #expect(m.transports[2].wifi == WifiSettings(performanceMode: .bulk, serviceClass: .background))
    }

    @Test func unknownModeClassOrKeyNamesThePath() {
        let p = problems(
            matrixText(
                transports: #"""
                    [{"plugin": "tcp", "wifi": {"performanceMode": "turbo", "serviceClass": "voice", "band": 6}}]
                    """#))
        #expect(p.map(\.path) == ["$.transports[0].wifi.band", "$.transports[0].wifi.performanceMode", "$.transports[0].wifi.serviceClass"])
        #expect(p[1].message == #"unknown performance mode "turbo"; expected one of "bulk", "realtime""#)
        #expect(p[2].message == #"unknown service class "voice"; expected one of "background", "bestEffort", "interactiveVideo", "interactiveVoice""#)
        #expect(problems(matrixText(transports: #"[{"plugin": "tcp", "wifi": "realtime"}]"#)).map(\.path) == ["$.transports[0].wifi"])
    }

    @Test func cellIDUnchangedWithoutWifiAndChangedWithIt() throws {
        let plain = try parse(matrixText(transports: #"[{"plugin": "tcp"}]"#))
        let cell = plain.cells()[0]
        // The formula before `wifi` existed: a matrix without it keeps its ids (and so
        // its journals resume and its baselines compare).
        let old = StableHash.hex(
            [
                cell.environment.json.compactText, cell.distance.label, "10x128", "tcp", "tcp",
                (cell.transport.identityOptions ?? cell.transport.effectiveOptions).compactText,
            ].joined(separator: "|"))
        #expect(cell.id == old)
        let explicitDefault = try parse(matrixText(transports: #"[{"plugin": "tcp", "wifi": {}}]"#)).cells()[0].id
        let realtime = try parse(matrixText(transports: #"[{"plugin": "tcp", "wifi": {"performanceMode": "realtime"}}]"#)).cells()[0].id
        #expect(explicitDefault != old)
        #expect(realtime != explicitDefault)
    }

    @Test func settingsCrossTheWorkerWire() throws {
        let m = try parse(matrixText(transports: #"[{"plugin": "tcp", "wifi": {"serviceClass": "interactiveVoice"}}]"#))
        let data = try JSONEncoder().encode(m.transports[0])
        let back = try JSONDecoder().decode(TransportSpec.self, from: data)
        #expect(back.wifi?.serviceClass == .interactiveVoice)
        let none = try JSONDecoder().decode(TransportSpec.self, from: JSONEncoder().encode(try parse(matrixText()).transports[0]))
        #expect(none.wifi == nil)
    }

    @Test(
        "DSCP and SO_PRIORITY as RFC 8325 maps each class, on IPv4, IPv6, UDP and TCP sockets",
        arguments: ServiceClass.allCases)
    func socketMarking(_ serviceClass: ServiceClass) throws {
        let expected: (UInt8, Int32) =
            switch serviceClass {
            case .background: (8, 1)
            case .bestEffort: (0, 0)
            case .interactiveVideo: (34, 4)
            case .interactiveVoice: (46, 6)
            }
        for family in [AF_INET, AF_INET6] {
            for type in [SOCK_DGRAM, SOCK_STREAM] {
                let s = try Socket(family: family, type: Int32(type.rawValue))
                defer { s.close() }
                try s.setServiceClass(serviceClass)
                let (dscp, priority) = try s.serviceMarking()
                #expect(dscp == expected.0 && priority == expected.1, "family \(family) type \(type.rawValue)")
            }
        }
    }

    @Test func everyScopedSocketOfACellIsMarked() throws {
        var cell = CellContext.loopback(payload: nil)
        cell.wifi = WifiSettings(performanceMode: .realtime, serviceClass: .interactiveVoice)
        let s = try Socket(family: AF_INET, type: Int32(SOCK_DGRAM.rawValue))
        let marking = try cell.withSocket(s) { try $0.serviceMarking() }
        #expect(marking.dscp == 46 && marking.priority == 6)
    }
}
