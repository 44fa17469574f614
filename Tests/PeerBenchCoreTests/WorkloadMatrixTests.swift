import Foundation
import PeerBenchCore
import PeerBenchPlugin
import Testing

/// The matrix's `"workloads"` dimension (docs/WORKLOADS.md): parsing, expansion, cell
/// ids, the record's keys, and bad input named by its JSON path.
@Suite struct WorkloadMatrixTests {
    func withWorkloads(
        _ list: String, transports: String = #"[{"plugin": "tcp"}, {"plugin": "uwb"}]"#,
        counts: String = "[10, 20]"
    ) -> String {
        matrixText(transports: transports, counts: counts).replacingOccurrences(of: #""payloads""#, with: #""workloads": \#(list), "payloads""#)
    }

    @Test func absentMeansTheUploadAndCellIDsDoNotChange() throws {
        let plain = try parse(matrixText(transports: #"[{"plugin": "tcp"}, {"plugin": "uwb"}]"#))
        #expect(plain.workloads == [.upload])
        let c = plain.cells()[0]
        let before = StableHash.hex(
            [
                c.environment.json.compactText, c.distance.label, "10x128", "tcp", "tcp",
                (c.transport.identityOptions ?? c.transport.effectiveOptions).compactText,
            ].joined(separator: "|"))
        #expect(c.id == before, "the id of an upload cell is what it was before workloads existed")
        #expect(c.workload.isDefault && !c.summary.contains("upload"))
    }

    @Test func bulkRunsPerPayloadTheOthersOnceAndUWBOnce() throws {
        let m = try parse(
            withWorkloads(
                #"["upload", "download", {"name": "rpc", "kind": "request-response", "requests": 5, "requestBytes": 10, "responseBytes": 20}]"#))
        let cells = m.cells()
        // tcp: 2 bulk workloads x 2 payloads + rpc once = 5; uwb (no payload): once.
        #expect(cells.count == 6)
        #expect(m.cellCount() == 6)
        #expect(Set(cells.map(\.id)).count == 6)
        let rpc = try #require(cells.first { $0.workload.name == "rpc" })
        #expect(rpc.payload == nil)
        #expect(rpc.summary == "tcp · forest · 1 m · rpc")
        #expect(cells.filter { $0.transport.plugin == "uwb" }.map(\.workload) == [.upload])
        // The explicit "upload" is a named entry: its cells are not the implicit upload's.
        let explicit = try #require(cells.first { $0.workload.name == "upload" && $0.payload?.count == 10 })
        let implicit = try parse(matrixText(transports: #"[{"plugin": "tcp"}]"#, counts: "[10, 20]")).cells()[0]
        #expect(explicit.id != implicit.id)
    }

    @Test func resolvedEntriesCarryTheirDefaults() throws {
        let m = try parse(withWorkloads(#"[{"name": "voice", "kind": "isochronous", "frameBytes": 160, "periodMs": 20, "durationSeconds": 10}]"#))
        let w = m.workloads[0]
        #expect(w.kind == .isochronous(frameBytes: 160, periodNanos: 20_000_000, frames: 500, direction: .up, deadlineNanos: 100_000_000))
        #expect(
            w.resolvedJSON.compactText
                == #"{"name":"voice","kind":"isochronous","direction":"up","streams":1,"frame_bytes":160,"period_ms":20,"frames":500,"deadline_ms":100}"#
        )
        let rr = try parse(withWorkloads(#"[{"name": "rpc", "kind": "request-response", "requests": 5, "requestBytes": 10, "responseBytes": 20}]"#))
            .workloads[0]
        #expect(rr.kind == .requestResponse(requests: 5, requestBytes: 10, responseBytes: 20, concurrency: 1))
    }

    @Test(arguments: [
        (#"[]"#, "$.matrix.workloads", "must not be empty"),
        (#"["upload", "upload"]"#, "$.matrix.workloads[1]", "listed twice"),
        (#"["sideways"]"#, "$.matrix.workloads[0]", "unknown workload \"sideways\""),
        (#"[{"name": "x", "kind": "bulk", "direction": "sideways"}]"#, "$.matrix.workloads[0].direction", "expected \"up\""),
        (#"[{"name": "x", "kind": "bulk", "streams": 17}]"#, "$.matrix.workloads[0].streams", "expected a whole number 1...16"),
        (
            #"[{"name": "x", "kind": "request-response", "requests": 1, "requestBytes": 1, "responseBytes": 1, "streams": 2}]"#,
            "$.matrix.workloads[0].streams", "unknown key for a request-response workload"
        ),
        (#"[{"name": "x", "kind": "firehose"}]"#, "$.matrix.workloads[0].kind", "expected one of"),
        (#"[{"kind": "bulk"}]"#, "$.matrix.workloads[0].name", "non-empty name"),
        (#"[{"name": "x", "kind": "bulk", "requests": 3}]"#, "$.matrix.workloads[0].requests", "unknown key for a bulk workload"),
        (
            #"[{"name": "x", "kind": "isochronous", "frameBytes": 160, "periodMs": 0, "durationSeconds": 1}]"#, "$.matrix.workloads[0].periodMs",
            "expected milliseconds between frames"
        ),
        (
            #"[{"name": "x", "kind": "isochronous", "frameBytes": 160, "periodMs": 1, "durationSeconds": 1000}]"#,
            "$.matrix.workloads[0].durationSeconds", "1000000 frames"
        ),
        (#"[{"name": "x", "kind": "request-response", "requestBytes": 10, "responseBytes": 20}]"#, "$.matrix.workloads[0].requests", "missing"),
        (
            #"[{"name": "x", "kind": "request-response", "requests": 5, "requestBytes": 100000, "responseBytes": 100000, "concurrency": 8}]"#,
            "$.matrix.workloads[0].concurrency", "bytes in flight"
        ),
    ])
    func badEntriesAreNamedByPath(list: String, path: String, words: String) {
        let found = problems(withWorkloads(list))
        #expect(found.contains { $0.path == path && $0.message.contains(words) }, "\(found)")
    }

    @Test func parallelStreamsJoinTheResolvedEntryAndATransportWithoutThemRefusesThem() throws {
        let m = try parse(withWorkloads(#"[{"name": "p4", "kind": "bulk", "direction": "down", "streams": 4}]"#))
        #expect(m.workloads[0].streams == 4 && !m.workloads[0].isUpload)
        #expect(m.workloads[0].resolvedJSON["streams"]?.intValue == 4)
        let four = try parse(withWorkloads(#"[{"name": "p4", "kind": "bulk", "streams": 4}]"#, transports: #"[{"plugin": "tcp"}]"#))
        let one = try parse(withWorkloads(#"[{"name": "p4", "kind": "bulk", "streams": 1}]"#, transports: #"[{"plugin": "tcp"}]"#))
        #expect(four.cells()[0].id != one.cells()[0].id)
        let found = problems(withWorkloads(#"[{"name": "p4", "kind": "bulk", "streams": 4}]"#, transports: #"[{"plugin": "udp"}]"#))
        #expect(found.count == 1 && found[0].path == "$.matrix.workloads[0]", "\(found)")
    }

    @Test func aTransportThatCannotRunAWorkloadIsRefusedNamingIt() {
        let found = problems(withWorkloads(#"["upload", "download"]"#, transports: #"[{"plugin": "tcp"}, {"plugin": "udp"}]"#))
        #expect(
            found.map(\.description) == [#"$.matrix.workloads[1]: transport "udp": udp: the bulk workload is unsupported by this transport"#],
            "\(found)")
    }

    @Test func theRecordSaysWhatRanAndWhatItMeasured() throws {
        let m = try parse(
            withWorkloads(
                #"[{"name": "voice", "kind": "isochronous", "frameBytes": 160, "periodMs": 20, "durationSeconds": 1, "direction": "bidir"}]"#))
        let cell = m.cells()[0]
        var measured = TransportMeasurement()
        measured.frames = FrameReport(
            sent: 100, received: 98, late: 3, deadlineNanos: 100_000_000,
            delayNanos: (0..<98).map { UInt64($0) * 1_000_000 })
        let r = Record(
            runID: "r", cell: cell, link: ResolvedLink(environment: "forest", distanceMeters: 1, distanceLabel: "1"), linkMode: .none,
            counters: nil, status: .ok, error: nil, startedAt: Date(), totalSeconds: 1, measurement: measured)
        let json = r.json
        #expect(json["workload"]?["name"]?.stringValue == "voice")
        #expect(json["workload"]?["direction"]?.stringValue == "bidir")
        #expect(json["frames"]?.compactText == #"{"sent":100,"received":98,"late":3,"lost":2,"deadline_ms":100}"#)
        #expect(json["frame_delay_ms"]?["max"]?.doubleValue == 97)
        #expect(json["request_response_ms"]?.isNull == true && json["throughput_by_direction_mbps"]?.isNull == true)
        #expect(Record.topLevelKeys.contains("delivery_by_direction"))
    }
}
