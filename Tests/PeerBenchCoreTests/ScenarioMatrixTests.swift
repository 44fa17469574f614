import Foundation
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchTestbed
import Testing

/// The matrix's `"scenarios"` dimension: parsing, defaults, cell ids, and bad input.
@Suite struct ScenarioMatrixTests {
    func withScenarios(_ list: String, transports: String = #"[{"plugin": "tcp"}, {"plugin": "uwb"}]"#) -> String {
        matrixText(transports: transports).replacingOccurrences(of: #""payloads""#, with: #""scenarios": \#(list), "payloads""#)
    }

    @Test func absentMeansStaticAndCellIDsDoNotChange() throws {
        let plain = try parse(matrixText(transports: #"[{"plugin": "tcp"}, {"plugin": "uwb"}]"#))
        let explicit = try parse(withScenarios(#"["static"]"#))
        #expect(plain.scenarios == [.static])
        #expect(plain.cells().map(\.id) == explicit.cells().map(\.id))
        // The id of a static cell is the hash of exactly what it was before scenarios existed.
        let c = plain.cells()[0]
        let before = StableHash.hex(
            [
                c.environment.json.compactText, c.distance.label, "10x128", "tcp", "tcp",
                (c.transport.identityOptions ?? c.transport.effectiveOptions).compactText,
            ].joined(separator: "|"))
        #expect(c.id == before)
        #expect(!c.summary.contains("static"))
    }

    @Test func aNameAloneIsTheBuiltInWithDefaults() throws {
        let m = try parse(withScenarios(#"["static", "outage", "walk-away", "body-block"]"#))
        #expect(m.scenarios.map(\.kindName) == ["static", "outage", "walk-away", "body-block"])
        #expect(m.scenarios[1].kind == .outage(atSeconds: 2, durationSeconds: 5))
        #expect(m.scenarios[2].kind == .walkAway(speedMps: 1.4, to: .max, back: false))
        #expect(m.scenarios[3].kind == .bodyBlock(depthDb: 15, lengthSeconds: 0.5, periodSeconds: 3))
        // tcp: 4 scenarios x 1 payload; uwb (no payload): 4 scenarios.
        let cells = m.cells()
        #expect(cells.count == 8)
        #expect(m.cellCount() == 8)
        #expect(Set(cells.map(\.id)).count == 8)
        #expect(
            cells.filter { $0.scenario.name == "outage" }.map(\.summary) == ["tcp · forest · 1 m · 10x128 B · outage", "uwb · forest · 1 m · outage"])
    }

    @Test func objectsCarryTheirParameters() throws {
        let m = try parse(
            withScenarios(
                #"[{"name": "o3", "kind": "outage", "atSeconds": 1, "durationSeconds": 3},"#
                    + #" {"name": "w", "kind": "walk-away", "speedMps": 2, "to": 40, "back": true},"#
                    + #" {"name": "b", "kind": "body-block", "depthDb": 25, "lengthSeconds": 1, "periodSeconds": 4}]"#))
        #expect(
            m.scenarios.map(\.kind) == [
                .outage(atSeconds: 1, durationSeconds: 3), .walkAway(speedMps: 2, to: .meters(40), back: true),
                .bodyBlock(depthDb: 25, lengthSeconds: 1, periodSeconds: 4),
            ])
        // Parameters are part of the cell id: another duration is another cell.
        let other = try parse(withScenarios(#"[{"name": "o3", "kind": "outage", "atSeconds": 1, "durationSeconds": 4}]"#))
        #expect(m.cells()[0].id != other.cells()[0].id)
    }

    @Test func badScenarioInputNamesThePath() {
        let negative = problems(withScenarios(#"[{"name": "o", "kind": "outage", "durationSeconds": -2}]"#))
        #expect(negative.map(\.path) == ["$.matrix.scenarios[0].durationSeconds"])
        #expect(negative.first?.message == "expected a duration in seconds between 0.001 and 86400, got -2")
        let kind = problems(withScenarios(#"[{"name": "x", "kind": "outtage"}]"#))
        #expect(kind.map(\.path) == ["$.matrix.scenarios[0].kind"])
        #expect(kind.first?.message.hasPrefix(#"unknown scenario kind "outtage" (did you mean "outage"?)"#) == true)
        let name = problems(withScenarios(#"["walkaway"]"#))
        #expect(name.map(\.path) == ["$.matrix.scenarios[0]"])
        #expect(name.first?.message.hasPrefix(#"unknown scenario "walkaway" (did you mean "walk-away"?)"#) == true)
        let key = problems(withScenarios(#"[{"name": "o", "kind": "outage", "depthDb": 3}]"#))
        #expect(key.map(\.path) == ["$.matrix.scenarios[0].depthDb"])
        let twice = problems(withScenarios(#"["outage", "outage"]"#))
        #expect(twice.map(\.path) == ["$.matrix.scenarios[1]"])
        let block = problems(withScenarios(#"[{"name": "b", "kind": "body-block", "lengthSeconds": 3, "periodSeconds": 2}]"#))
        #expect(block.map(\.path) == ["$.matrix.scenarios[0].lengthSeconds"])
        let to = problems(withScenarios(#"[{"name": "w", "kind": "walk-away", "to": "far"}]"#))
        #expect(to.map(\.path) == ["$.matrix.scenarios[0].to"])
    }

    @Test func traceFilesAreRelativeToTheMatrixAndCheckedLineByLine() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pbs-trace-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "1\n1\n2\n5\n".write(toFile: dir + "/up.trace", atomically: true, encoding: .utf8)
        try "1\n2\nx3\n".write(toFile: dir + "/bad.trace", atomically: true, encoding: .utf8)
        try "4\n3\n".write(toFile: dir + "/back.trace", atomically: true, encoding: .utf8)
        func load(_ up: String, _ down: String) throws -> Matrix {
            let text = withScenarios(#"[{"name": "t", "kind": "trace", "up": "\#(up)", "down": "\#(down)"}]"#)
            try text.write(toFile: dir + "/m.json", atomically: true, encoding: .utf8)
            return try loader.load(path: dir + "/m.json")
        }
        let m = try load("up.trace", "up.trace")
        guard case .trace(let up, _) = m.scenarios[0].kind else {
            Issue.record("not a trace")
            return
        }
        #expect(up.opportunitiesMs == [1, 1, 2, 5])
        #expect(up.periodMs == 5)
        #expect(abs(up.rateMbps - 4 * 1500 * 8 / 0.005 / 1e6) < 1e-9)

        func error(_ up: String, _ down: String) -> String {
            do {
                _ = try load(up, down)
                return ""
            } catch { return "\(error)" }
        }
        #expect(
            error("missing.trace", "up.trace")
                == "\(dir)/missing.trace: trace file not found (paths are relative to the matrix file) (named by $.matrix.scenarios[0].up)")
        #expect(
            error("up.trace", "bad.trace")
                == "\(dir)/bad.trace: line 3: expected a whole number of milliseconds, found \"x\" (named by $.matrix.scenarios[0].down)")
        #expect(error("back.trace", "up.trace").hasPrefix("\(dir)/back.trace: line 2: time 3 ms goes back in time"))
        let bare = problems(withScenarios(#"["trace"]"#))
        #expect(bare.map(\.path) == ["$.matrix.scenarios[0]"])
    }

    @Test func mahimahiParserEdges() throws {
        #expect(try MahimahiTrace.parse(Array("0\n0\n10\n\n".utf8), file: "f").opportunitiesMs == [0, 0, 10])
        #expect(try MahimahiTrace.parse(Array("3\r\n7".utf8), file: "f").opportunitiesMs == [3, 7])
        for (text, expected) in [
            ("", "f: trace is empty; it needs at least one delivery opportunity"),
            ("0\n", "f: line 1: the last time is 0 ms; the trace repeats with the period of its last time, which must be above 0"),
            ("1\n\n2\n", "f: line 3: blank line before this one; every line must hold a time in milliseconds"),
            ("1\n-2\n", "f: line 2: expected a whole number of milliseconds, found \"-\""),
        ] {
            do {
                _ = try MahimahiTrace.parse(Array(text.utf8), file: "f")
                Issue.record("accepted \(text)")
            } catch {
                #expect(error.description == expected)
            }
        }
    }

    @Test func scenariosNeedTheEmulatedLink() throws {
        let m = try parse(withScenarios(#"["static", "outage"]"#))
        #expect(throws: Never.self) { try m.checkScenarios(linkMode: .emulated, matrixFile: "m.json") }
        do {
            try m.checkScenarios(linkMode: .none, matrixFile: "m.json")
            Issue.record("accepted --link none")
        } catch {
            #expect(
                error.description.hasPrefix(
                    #"m.json: $.matrix.scenarios[1]: scenario "outage" changes the link during the cell, which only the emulated link can do"#))
        }
        #expect(throws: Never.self) { try parse(matrixText()).checkScenarios(linkMode: .remote, matrixFile: "m.json") }
    }
}

/// The record's `scenario` figures from synthetic series with known answers.
@Suite struct ScenarioFiguresTests {
    let outage = ScenarioEvent(name: "o", kind: "outage", startSeconds: 2, endSeconds: 4, deadSeconds: 2, deadStartSeconds: 2, timeline: [])

    /// 10 ms bins: 1 000 bytes per bin before 2 s, nothing during the outage, then a
    /// first trickle at 4.3 s and the full rate again from 4.8 s.
    func delivery() -> LinkDeliverySeries {
        var up = [Int](repeating: 1_000, count: 200) + [Int](repeating: 0, count: 200)
        up += [Int](repeating: 0, count: 30) + [Int](repeating: 100, count: 50) + [Int](repeating: 1_000, count: 200)
        return LinkDeliverySeries(up: up, down: [])
    }

    @Test func survivingConnection() {
        let receiver = BulkSeries(intervalNanos: 100_000_000, bytes: [5, 5, 0, 0, 0, 0, 0, 0, 0, 5, 5])
        let s = ScenarioFigures(event: outage).figures(
            receiver: receiver, delivery: delivery(),
            ending: .init(completed: true, failedAtSeconds: nil))
        #expect(s.name == "o" && s.kind == "outage")
        #expect(s.stallMs == 700)
        #expect(s.recoverMs == 300)
        // The first 0.5 s window averaging 90 % of 1 000 bytes per bin starts at 4.75 s (5 trickle bins, 45 full).
        #expect(s.recover90Ms == 750)
        #expect(s.bytesDuringEvent == 0)
        #expect(s.survived == true && s.reconnects == 0)
        #expect(s.detectMs == nil)
    }

    /// With `reconnect`: lost 1.6 s into the outage, a first re-made connection resumed
    /// before the link's return (it cannot count for reconnect_ms), a second 0.35 s after it.
    @Test func reconnectedTransfer() {
        let reconnects = [
            ScenarioFigures.Reconnect(lostAtSeconds: 3.6, resumedAtSeconds: 3.9, resentBytes: 1_000),
            ScenarioFigures.Reconnect(lostAtSeconds: 3.95, resumedAtSeconds: 4.35, resentBytes: 500),
        ]
        let s = ScenarioFigures(event: outage).figures(
            receiver: nil, delivery: delivery(),
            ending: .init(completed: true, failedAtSeconds: nil, reconnects: reconnects, duplicates: 0))
        #expect(s.survived == true && s.reconnects == 2)
        #expect(s.reconnectMs == 350)
        #expect(s.detectMs == 1_600)
        #expect(s.resentBytes == 1_500 && s.duplicates == 0 && s.resumed == nil)
        // A walk away and back: the link is usable again when its dead stretch ends
        // (1.2 + 4.4 = 5.6 s), before the walker is back at 6.67 s.
        let walk = ScenarioEvent(
            name: "w", kind: "walk-away", startSeconds: 0, endSeconds: 6.67, deadSeconds: 4.4, deadStartSeconds: 1.2,
            timeline: [])
        let walked = ScenarioFigures(event: walk).figures(
            receiver: nil, delivery: nil,
            ending: .init(
                completed: true, failedAtSeconds: nil, reconnects: [.init(lostAtSeconds: 2.5, resumedAtSeconds: 5.9, resentBytes: 0)], duplicates: 0))
        #expect(walked.reconnectMs == 300 && walked.detectMs == 1_300)
        #expect(s.reconnectMsReason == nil && walked.reconnectMsReason == nil, "measured: no reason")
        // Without the option every new figure stays null.
        let plain = ScenarioFigures(event: outage).figures(receiver: nil, delivery: delivery(), ending: .init(completed: true, failedAtSeconds: nil))
        #expect(plain.reconnectMs == nil && plain.resentBytes == nil && plain.duplicates == nil && plain.reconnects == 0)
    }

    /// reconnects >= 1 and no reconnect_ms: the record says why (issue 42, item 3; quic's
    /// reconnect under matrices/reconnect.json's walk-away-back recorded neither).
    @Test func reconnectWithoutReconnectMsSaysWhy() {
        let walk = ScenarioEvent(
            name: "w", kind: "walk-away", startSeconds: 0, endSeconds: 19.5, deadSeconds: 8, deadStartSeconds: 5.7,
            timeline: [])
        let early = ScenarioFigures(event: walk).figures(
            receiver: nil, delivery: nil,
            ending: .init(
                completed: true, failedAtSeconds: nil, reconnects: [.init(lostAtSeconds: 7.9, resumedAtSeconds: 13.2, resentBytes: 0)], duplicates: 0)
        )
        #expect(early.reconnects == 1 && early.reconnectMs == nil)
        #expect(
            early.reconnectMsReason
                == "every re-made connection was resumed before the link's return at 13.7 s on the link clock (the last at 13.2 s): the link carried it while the scenario still counted it dead",
            "\(early.reconnectMsReason ?? "no reason")")
        let away = ScenarioEvent(name: "a", kind: "walk-away", startSeconds: 0, endSeconds: nil, deadSeconds: 8, deadStartSeconds: 5.7, timeline: [])
        let gone = ScenarioFigures(event: away).figures(
            receiver: nil, delivery: nil,
            ending: .init(
                completed: true, failedAtSeconds: nil, reconnects: [.init(lostAtSeconds: 7.9, resumedAtSeconds: 13.2, resentBytes: 0)], duplicates: 0)
        )
        #expect(
            gone.reconnectMs == nil
                && gone.reconnectMsReason?.hasPrefix("the link does not return in this scenario (walk-away without a return)") == true,
            "\(gone.reconnectMsReason ?? "no reason")")
        let before = ScenarioFigures(event: walk).figures(
            receiver: nil, delivery: nil,
            ending: .init(
                completed: true, failedAtSeconds: nil, reconnects: [.init(lostAtSeconds: 4.1, resumedAtSeconds: 4.6, resentBytes: 0)], duplicates: 0))
        #expect(
            before.reconnectMsReason
                == "every re-made connection was resumed before the dead stretch began at 5.7 s on the link clock (the last at 4.6 s), and the last one outlived it to the link's return at 13.7 s",
            "\(before.reconnectMsReason ?? "no reason")")
        // Every record with reconnects >= 1 has one or the other.
        for s in [early, gone, before] { #expect((s.reconnects ?? 0) >= 1 && (s.reconnectMs != nil) != (s.reconnectMsReason != nil)) }
    }

    @Test func deadConnectionAndTheOKRule() {
        let f = ScenarioFigures(event: outage)
        let s = f.figures(receiver: nil, delivery: delivery(), ending: .init(completed: false, failedAtSeconds: 3.25))
        #expect(s.survived == false)
        #expect(s.detectMs == 1250)
        #expect(s.stallMs == nil)
        #expect(s.recoverMs == nil, "a connection that died before the link came back does not recover")
        // Expected: dead 2 s >= a 1 s timeout, failure after the outage began.
        #expect(f.deathIsExpected(deadPeerTimeoutSeconds: 1, failedAtSeconds: 3.25))
        #expect(!f.deathIsExpected(deadPeerTimeoutSeconds: 3, failedAtSeconds: 3.25), "the settings predict survival of a 2 s outage")
        #expect(!f.deathIsExpected(deadPeerTimeoutSeconds: nil, failedAtSeconds: 3.25))
        #expect(!f.deathIsExpected(deadPeerTimeoutSeconds: 1, failedAtSeconds: 1.5), "a failure before the outage is not the outage's")
    }
}
