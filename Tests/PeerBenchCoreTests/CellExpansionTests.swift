import PeerBenchCore
import Testing

@Suite struct CellExpansionTests {
    @Test func defaultMatrixHasTheFieldStudysCellCount() throws {
        let m = try loader.load(path: packageRoot + "/matrix.json")
        let cells = m.cells()
        // 4 payload transports x (4 environments x 4 distances x 4 counts x 3 sizes) + UWB once per environment x distance.
        #expect(cells.count == 4 * 4 * 4 * 12 + 16)
        #expect(cells.filter { $0.transport.plugin == "uwb" }.allSatisfy { $0.payload == nil })
        #expect(Set(cells.map(\.key)).count == cells.count)
    }

    @Test func idsAreStableAndSeedsDependOnRunSeedAndRepetition() throws {
        let m = try parse(matrixText(extra: #""repetitions": 2, "seed": 7, "#))
        let a = m.cells(), b = m.cells()
        #expect(a.map(\.id) == b.map(\.id))
        #expect(a.map(\.seed) == b.map(\.seed))
        #expect(a[0].id == a[1].id)
        #expect(a[0].seed != a[1].seed)
        #expect(m.cells(seed: 8)[0].seed != a[0].seed)
        #expect(a[0].id.count == 16)
    }

    @Test func transportsAlternateInnermost() throws {
        let m = try parse(matrixText(transports: #"[{"plugin": "tcp"}, {"plugin": "udp"}]"#, counts: "[1, 2]"))
        #expect(m.cells().map(\.transport.label) == ["tcp", "udp", "tcp", "udp"])
    }

    @Test func optionsChangeTheCellID() throws {
        let a = try parse(matrixText(transports: #"[{"plugin": "tcp", "options": {"noDelay": true}}]"#)).cells()[0].id
        let b = try parse(matrixText(transports: #"[{"plugin": "tcp", "options": {"noDelay": false}}]"#)).cells()[0].id
        let c = try parse(matrixText(transports: #"[{"plugin": "tcp"}]"#)).cells()[0].id
        #expect(a != b)
        #expect(b == c, "an explicit default is the same cell as an omitted one")
    }
}
