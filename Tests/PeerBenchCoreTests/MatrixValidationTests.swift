import Foundation
import PeerBenchCore
import PeerBenchPlugin
import Testing

/// One test per class of bad input the foundation issue lists; each checks that the
/// error names the JSON path at fault.
@Suite struct MatrixValidationTests {
    @Test func missingFileNamesTheFile() {
        do { _ = try loader.load(path: "/nonexistent/matrix.json"); Issue.record("expected an error") } catch {
            #expect(error.description == "/nonexistent/matrix.json: file not found (give a matrix file, or run from a folder that has matrix.json)")
        }
    }

    @Test func invalidJSONGivesLineAndColumn() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID()).json").path
        try Data("{\n  \"name\": \"x\",\n  \"transports\": [,]\n}".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        do { _ = try loader.load(path: path); Issue.record("expected an error") } catch {
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
        #expect(p.first?.message == #"expected one of "ping-pong", "pipelined", got "pipelining""#)
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
        let p = problems(matrixText(environments: #"[{"name": "lab", "link": {"delayMs": -1, "mtu": 100, "lossPct": 1}}]"#,
                                    distances: #"[0, "far", 10, 10]"#))
        #expect(Set(p.compactMap(\.path)) == ["$.matrix.environments[0].link.lossPct", "$.matrix.environments[0].link.delayMs",
                                               "$.matrix.environments[0].link.mtu", "$.matrix.distances[0]",
                                               "$.matrix.distances[1]", "$.matrix.distances[3]"])
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
        let m = try parse(matrixText(environments: #"["forest", {"name": "lab", "link": {"delayMs": 10, "jitterMs": 1, "lossPercent": 0.5, "rateMbps": 50, "mtu": 1500}}]"#))
        #expect(m.environments.map(\.name) == ["forest", "lab"])
        #expect(m.environments[1].kind == .fixed(FixedLink(delayMs: 10, jitterMs: 1, lossPercent: 0.5, rateMbps: 50, mtu: 1500)))
    }
}
