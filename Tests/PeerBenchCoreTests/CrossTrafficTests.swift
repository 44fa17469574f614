import Foundation
import Logging
import PeerBenchTestbed
import Testing

@testable import PeerBenchCore
@testable import PeerBenchJSON
@testable import PeerBenchPlugin

/// The matrix's `crossTraffic`: variants, cell ids, errors naming the JSON path, and
/// what the record says.
@Suite struct CrossTrafficTests {
    @Test func oneFlowForEveryCell() throws {
        let m = try parse(matrixText(extra: #""crossTraffic": {"serviceClass": "background", "direction": "both", "rateMbps": 20}, "#))
        #expect(m.crossTraffic == [CrossTrafficSpec(serviceClass: .background, direction: .both, rateMbps: 20)])
        #expect(m.cells().map(\.crossTraffic) == [CrossTrafficSpec(serviceClass: .background, direction: .both, rateMbps: 20)])
        #expect(m.cellCount() == 1)
    }

    @Test func variantsRunEveryCellOncePerEntryAndKeepTheIDsOfNone() throws {
        let plain = try parse(matrixText(transports: #"[{"plugin": "tcp"}, {"plugin": "udp"}]"#))
        let m = try parse(
            matrixText(
                transports: #"[{"plugin": "tcp"}, {"plugin": "udp"}]"#,
                extra: #""crossTraffic": ["none", {"rateMbps": "saturating"}], "#))
        let cells = m.cells()
        #expect(m.cellCount() == 4 && cells.count == 4)
        #expect(cells.map(\.crossTraffic) == [nil, nil, CrossTrafficSpec(), CrossTrafficSpec()])
        #expect(Array(cells.prefix(2).map(\.id)) == plain.cells().map(\.id), "\"none\" cells are the plain matrix's cells")
        #expect(Set(cells.map(\.id)).count == 4)
        #expect(cells[2].summary.hasSuffix("cross background up saturating"))
    }

    @Test func badInputNamesTheJSONPath() {
        func p(_ cross: String) -> [InputProblem] { problems(matrixText(extra: "\"crossTraffic\": \(cross), ")) }
        let zero = p(#"{"rateMbps": 0}"#)
        #expect(zero.map(\.path) == ["$.crossTraffic.rateMbps"])
        #expect(zero.first?.message == #"expected an offered rate above 0 and at most 100000 Mbit/s, or "saturating", got 0"#)
        #expect(p(#"{"rateMbps": -5}"#).map(\.path) == ["$.crossTraffic.rateMbps"])
        #expect(p(#"{"rateMbps": "lots"}"#).map(\.path) == ["$.crossTraffic.rateMbps"])
        #expect(p(#"{}"#).map(\.path) == ["$.crossTraffic.rateMbps"])
        let cls = p(#"["none", {"rateMbps": 5, "serviceClass": "bulk", "direction": "sideways"}]"#)
        #expect(cls.map(\.path) == ["$.crossTraffic[1].serviceClass", "$.crossTraffic[1].direction"])
        #expect(cls.last?.message == #"unknown direction "sideways"; expected one of "up", "down", "both" (up = client to server)"#)
        #expect(p("[]").map(\.path) == ["$.crossTraffic"])
        #expect(p("7").map(\.path) == ["$.crossTraffic"])
    }

    @Test func theRecordSaysTheModeAndClassAndNoCrossTrafficOverLoopback() async throws {
        let m = try parse(
            matrixText(
                transports: #"[{"plugin": "scripted", "wifi": {"performanceMode": "realtime", "serviceClass": "interactiveVideo"}}]"#,
                extra: #""crossTraffic": {"rateMbps": 5}, "#))
        let cell = m.cells()[0]
        let executor = CellExecutor(
            registry: fieldStudyRegistry, testbed: LoopbackTestbed(), rttProbes: 3, timeoutSeconds: 10,
            logger: Logger(label: "test"))
        let link = try FakeLinkModel().resolve(cell.environment, cell.distance)
        let r = await executor.run(cell, link: link, runID: "r")
        #expect(r.status == .ok)
        #expect(r.link.performanceMode == "realtime")
        #expect(r.link.serviceClass == "interactiveVideo")
        #expect(r.crossTraffic == Record.CrossTraffic(), "over loopback the flow does not run: every figure null")
    }
}
