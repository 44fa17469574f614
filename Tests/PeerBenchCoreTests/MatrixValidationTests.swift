import Foundation
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchTestbed
import Testing

/// One test per class of bad input the foundation issue lists; each checks that the
/// error names the JSON path at fault.
@Suite struct MatrixValidationTests {
    @Test func missingFileNamesTheFile() {
        do {
            _ = try loader.load(path: "/nonexistent/matrix.json")
            Issue.record("expected an error")
        } catch {
            #expect(error.description == "/nonexistent/matrix.json: file not found (give a matrix file, or run from a folder that has matrix.json)")
        }
    }

    @Test func invalidJSONGivesLineAndColumn() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID()).json").path
        try Data("{\n  \"name\": \"x\",\n  \"transports\": [,]\n}".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            _ = try loader.load(path: path)
            Issue.record("expected an error")
        } catch {
            #expect(error.description == "\(path): invalid JSON at line 3, column 18: expected a value, found ','")
        }
    }

    @Test func wrongTypes() {
        let p = problems(matrixText(counts: #"["ten"]"#, extra: #""repetitions": "2", "#))
        #expect(p.map(\.path) == ["$.repetitions", "$.matrix.payloads.counts[0]"])
        #expect(p[0].message == #"expected a whole number of repetitions, "auto" or "auto:MAX", got "2""#)
    }

    @Test func unknownKeysAreNotIgnored() {
        let p = problems(matrixText(extra: #""repetitons": 2, "#))
        #expect(p.count == 1)
        #expect(p[0].path == "$.repetitons")
        #expect(p[0].message == #"unknown key "repetitons"; did you mean "repetitions"?"#)
        let nested = problems(matrixText(transports: #"[{"plugin": "scripted", "optoins": {}}]"#))
        #expect(nested.map(\.path) == ["$.transports[0].optoins"])
    }

    @Test func unknownPluginOptionIsRejected() {
        let p = problems(matrixText(transports: #"[{"plugin": "tcp", "options": {"noDelya": true}}]"#))
        #expect(p.map(\.path) == ["$.transports[0].options.noDelya"])
        let nested = problems(matrixText(transports: #"[{"plugin": "tcp", "options": {"keepAlive": {"idle": 1}}}]"#))
        #expect(nested.map(\.path) == ["$.transports[0].options.keepAlive.idle"])
    }

    @Test func rttMethodIsPingPongByDefaultAndOneOfTwoNames() throws {
        #expect(try loader.parse(Array(matrixText().utf8)).rttMethod == .pingPong)
        #expect(try loader.parse(Array(matrixText(extra: #""rttMethod": "pipelined", "#).utf8)).rttMethod == .pipelined)
        let p = problems(matrixText(extra: #""rttMethod": "pipelining", "#))
        #expect(p.map(\.path) == ["$.rttMethod"])
        #expect(p.first?.message == #"expected one of "ping-pong", "pipelined", "send-loop", got "pipelining""#)
        #expect(problems(matrixText(extra: #""rttMethod": 2, "#)).map(\.path) == ["$.rttMethod"])
    }

    @Test("rttProbeIntervalMs: milliseconds between pipelined probe sends, only with the pipelined method")
    func rttProbeInterval() throws {
        let m = try loader.parse(Array(matrixText(extra: #""rttMethod": "pipelined", "rttProbeIntervalMs": 1.5, "#).utf8))
        #expect(m.rttProbeSpacingNanos == 1_500_000)
        #expect(try loader.parse(Array(matrixText().utf8)).rttProbeSpacingNanos == 0)
        let pingPong = problems(matrixText(extra: #""rttProbeIntervalMs": 2, "#))
        #expect(pingPong.map(\.path) == ["$.rttProbeIntervalMs"])
        #expect(pingPong.first?.message.contains("pipelined") == true)
        #expect(problems(matrixText(extra: #""rttMethod": "pipelined", "rttProbeIntervalMs": -1, "#)).map(\.path) == ["$.rttProbeIntervalMs"])
        #expect(problems(matrixText(extra: #""rttMethod": "pipelined", "rttProbeIntervalMs": "1", "#)).map(\.path) == ["$.rttProbeIntervalMs"])
        // The app's send loop has no timer: an interval with it is refused, naming the key.
        let sendLoop = try loader.parse(Array(matrixText(extra: #""rttMethod": "send-loop", "#).utf8))
        #expect(sendLoop.rttMethod == .sendLoop && sendLoop.rttProbeSpacingNanos == 0)
        let spaced = problems(matrixText(extra: #""rttMethod": "send-loop", "rttProbeIntervalMs": 1, "#))
        #expect(spaced.map(\.path) == ["$.rttProbeIntervalMs"])
        #expect(spaced.first?.message.contains("send loop has none") == true)
    }

    @Test("rttPayloads: probe only in cells whose payload count (size) is listed; each value one of the matrix's")
    func rttPayloads() throws {
        let payloads = (counts: "[100, 1000, 10000]", sizes: "[128, 4096]")
        func text(_ extra: String) -> String { matrixText(counts: payloads.counts, sizes: payloads.sizes, extra: extra) }
        let m = try parse(text(#""rttPayloads": {"counts": [100]}, "#))
        #expect(m.rttPayloads == RTTPayloadSelection(counts: [100], sizes: nil))
        let cells = m.cells()
        #expect(cells.count == 6)
        #expect(cells.map { m.rttProbes(for: $0) } == cells.map { $0.payload?.count == 100 ? 100 : 0 })
        #expect(cells.filter { m.rttProbes(for: $0) > 0 }.count == 2)
        // Absent: every cell probes, and the cells keep their ids (the key is not a cell parameter).
        let plain = try parse(text(""))
        #expect(plain.rttPayloads == nil)
        #expect(plain.cells().allSatisfy { plain.rttProbes(for: $0) == 100 })
        #expect(plain.cells().map(\.id) == cells.map(\.id))
        #expect(plain.cells().map(\.seed) == cells.map(\.seed))
        // Both lists: a cell must match both; a payload-less transport always probes.
        let both = try parse(text(#""rttPayloads": {"counts": [100, 1000], "sizes": [4096]}, "#))
        #expect(
            both.cells().filter { both.rttProbes(for: $0) > 0 }.map { $0.payload! } == [
                Payload(count: 100, size: 4096), Payload(count: 1000, size: 4096),
            ])
        #expect(both.rttProbes(for: nil as Payload?) == 100)

        let unknownCount = problems(text(#""rttPayloads": {"counts": [100, 500]}, "#))
        #expect(unknownCount.map(\.path) == ["$.rttPayloads.counts[1]"])
        #expect(unknownCount.first?.message == "500 is not one of the matrix's payload counts (100, 1000, 10000)")
        let unknownSize = problems(text(#""rttPayloads": {"sizes": [4096, 9216]}, "#))
        #expect(unknownSize.map(\.path) == ["$.rttPayloads.sizes[1]"])
        #expect(unknownSize.first?.message == "9216 is not one of the matrix's payload sizes (128, 4096)")
        #expect(problems(text(#""rttPayloads": {"counts": ["100"]}, "#)).map(\.path) == ["$.rttPayloads.counts[0]"])
        #expect(problems(text(#""rttPayloads": {"counts": [100, 100]}, "#)).map(\.path) == ["$.rttPayloads.counts[1]"])
        #expect(problems(text(#""rttPayloads": {"counts": []}, "#)).map(\.path) == ["$.rttPayloads.counts"])
        #expect(problems(text(#""rttPayloads": {"count": [100]}, "#)).map(\.path) == ["$.rttPayloads.count"])
        #expect(problems(text(#""rttPayloads": {}, "#)).map(\.path) == ["$.rttPayloads"])
        #expect(problems(text(#""rttPayloads": [100], "#)).map(\.path) == ["$.rttPayloads"])
        let noProbes = problems(text(#""rttProbes": 0, "rttPayloads": {"counts": [100]}, "#))
        #expect(noProbes.map(\.path) == ["$.rttPayloads"])
        #expect(noProbes.first?.message.contains("\"rttProbes\" is 0") == true)
    }

    @Test func countsAndSizesMustBePositive() {
        let p = problems(matrixText(counts: "[0, 10]", sizes: "[128, -1]"))
        #expect(p.map(\.path) == ["$.matrix.payloads.counts[0]", "$.matrix.payloads.sizes[1]"])
        #expect(p[0].message == "a message count must be at least 1, got 0")
        #expect(p[1].message == "a message size in bytes must be at least 1, got -1")
    }

    @Test func sizeThePluginCannotCarry() {
        let p = problems(matrixText(transports: #"[{"plugin": "scripted", "label": "small", "options": {"maxSize": 1000}}]"#, sizes: "[128, 4096]"))
        #expect(p.map(\.path) == ["$.matrix.payloads.sizes[1]"])
        #expect(p[0].message == #"transport "small": size 4096 is above 1000"#)
    }

    @Test func unknownPlugin() {
        let p = problems(matrixText(transports: #"[{"plugin": "sctp"}]"#))
        #expect(p.map(\.path) == ["$.transports[0]"])
        #expect(p[0].message.hasPrefix(#"unknown plugin "sctp"; available: quic, scripted, tcp, udp, uwb"#))
    }

    @Test func unknownEnvironmentSuggestsTheClosest() {
        let p = problems(matrixText(environments: #"["forrest"]"#))
        #expect(p.map(\.path) == ["$.matrix.environments[0]"])
        #expect(p[0].message.hasPrefix(#"unknown environment "forrest" (did you mean "forest"?)"#))
    }

    @Test func duplicateTransportLabels() {
        let p = problems(matrixText(transports: #"[{"plugin": "tcp"}, {"plugin": "tcp", "options": {"noDelay": true}}]"#))
        #expect(p.map(\.path) == ["$.transports[1].label"])
        #expect(p[0].message.hasPrefix(#"duplicate transport label "tcp""#))
    }

    @Test func badDistancesAndFixedLinks() {
        let p = problems(
            matrixText(
                environments: #"[{"name": "lab", "link": {"delayMs": -1, "mtu": 100, "lossPct": 1}}]"#,
                distances: #"[0, "far", 10, 10]"#))
        #expect(
            Set(p.compactMap(\.path)) == [
                "$.matrix.environments[0].link.lossPct", "$.matrix.environments[0].link.delayMs",
                "$.matrix.environments[0].link.mtu", "$.matrix.distances[0]",
                "$.matrix.distances[1]", "$.matrix.distances[3]",
            ])
    }

    @Test func missingSectionsAreNamed() {
        let p = problems(#"{"transports": []}"#)
        #expect(p.map(\.path) == ["$.matrix", "$.transports"])
    }

    @Test func everyProblemIsReportedAtOnce() {
        let p = problems(matrixText(transports: #"[{"plugin": "nope"}]"#, environments: #"["mars"]"#, counts: "[0]"))
        #expect(p.count == 3)
    }

    @Test func fixedLinkEnvironmentIsAccepted() throws {
        let m = try parse(
            matrixText(
                environments: #"["forest", {"name": "lab", "link": {"delayMs": 10, "jitterMs": 1, "lossPercent": 0.5, "rateMbps": 50, "mtu": 1500}}]"#
            ))
        #expect(m.environments.map(\.name) == ["forest", "lab"])
        #expect(m.environments[1].kind == .fixed(FixedLink(delayMs: 10, jitterMs: 1, lossPercent: 0.5, rateMbps: 50, mtu: 1500)))
    }
}
