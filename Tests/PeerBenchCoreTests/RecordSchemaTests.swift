import Foundation
import PeerBenchTestbed
import Testing

@testable import PeerBenchCore
@testable import PeerBenchJSON
@testable import PeerBenchPlugin
@testable import PeerBenchSystem

/// The record, the CSV and the worker wire come from one definition each: a field added
/// to `Record` or `TransportMeasurement` shows up everywhere without further edits.
@Suite(.timeLimit(.minutes(1))) struct RecordSchemaTests {
    /// Every leaf of a record whose nested objects are all present.
    func leaves(_ v: JSONValue, _ prefix: String = "") -> [String] {
        guard case .object(let o) = v else { return [prefix] }
        return o.flatMap { leaves($0.value, prefix.isEmpty ? $0.key : prefix + "." + $0.key) }
    }

    @Test func everyLeafOfTheRecordIsACSVColumnInOrder() {
        let expected = leaves(Record.template.json).filter {
            !RecordsCSV.excluded.contains($0) && !$0.hasPrefix("transport.options.") && !$0.hasPrefix("extra.")
        }
        #expect(RecordsCSV.columns == expected)
        #expect(RecordsCSV.columns.first == "run_id")
        #expect(RecordsCSV.columns.contains("link.drops_down"))
        #expect(RecordsCSV.columns.contains("delivery.loss_ratio"))
        #expect(RecordsCSV.row(Record.template).split(separator: ",", omittingEmptySubsequences: false).count == RecordsCSV.columns.count)
    }

    /// Schema /3's sections are present in every new record: a static scenario and an
    /// all-null cross-traffic object, so every record has the same keys.
    @Test func aNewRecordHasAStaticScenarioAndNullCrossTraffic() throws {
        let json = Fixtures.record("c1").json
        #expect(json["scenario"]?["name"] == "static" && json["scenario"]?["kind"] == "static")
        #expect(
            json["scenario"]?["stall_ms"] == .null && json["scenario"]?.objectValue?.keys.count == 16
                && json["scenario"]?["reconnect_ms_reason"] == .null)
        #expect(json["cross_traffic"]?.objectValue?.keys == ["service_class", "offered_mbps", "goodput_mbps"])
        #expect(RecordsCSV.columns.contains("scenario.recover90_ms") && RecordsCSV.columns.contains("link.energy_mj.server"))
    }

    @Test func everyTopLevelKeyIsWrittenEvenWhenNull() throws {
        var r = Fixtures.record("c1", status: .failed)
        r.rttMs = nil
        r.delivery = nil
        r.payload = nil
        let o = try #require(r.json.objectValue)
        #expect(o.keys == Record.topLevelKeys)
        #expect(o["rtt_ms"] == .null && o["payload"] == .null && o["error"] == .null)
        #expect(r.json["link"]?.objectValue?.keys.count == 24)
    }

    @Test func aRecordSurvivesTheJournalLine() throws {
        var r = Fixtures.record("c1", 3, status: .partial, mbps: 12.5)
        r.extra["tcp"] = ["retransmits": 4]
        r.seed = (1 << 53) - 1
        let line = r.json.compactText
        let back = try Record(json: JSONParser.parse(line))
        #expect(back == r)
        #expect(back.seed == (1 << 53) - 1)
        #expect(line.contains(#""seed":9007199254740991,"#), "53-bit integers print as integers")
        #expect(try JSONParser.parse(line).objectValue?.keys == Record.topLevelKeys)
    }

    /// Schema /2 only added keys: a /1 line (written before the bump) still reads, with
    /// the new keys null, so old runs can be resumed, merged and compared.
    @Test func aVersion1RecordStillReads() throws {
        var json = try #require(Fixtures.record("c1").json.objectValue)
        json["schema"] = "peerbench.record/1"
        json["rtt_loaded_ms"] = nil
        json["responsiveness_rpm"] = nil
        json["scenario"] = nil
        json["cross_traffic"] = nil
        var link = try #require(json["link"]?.objectValue)
        for key in [
            "peer_address", "interface", "path_mtu", "control_rtt_ms", "performance_mode", "service_class",
            "radio_on_fraction", "energy_mj",
        ] { link[key] = nil }
        json["link"] = .object(link)
        let old = try Record(json: .object(json))
        #expect(old.schema == "peerbench.record/1")
        #expect(old.rttLoadedMs == nil && old.responsivenessRpm == nil)
        #expect(old.scenario == nil && old.crossTraffic == nil && old.link.pathMtu == nil)
        #expect(Record.readableSchemas.contains(old.schema))
        #expect(Record.currentSchema == "peerbench.record/6")
    }

    /// Schema /4 only added `rtt_method` and `receiver_span_mbps`: a /3 line reads with both null.
    @Test func aVersion3RecordStillReads() throws {
        let old = try olderRecord("peerbench.record/3", without: ["rtt_method", "receiver_span_mbps"])
        #expect(old.rttMethod == nil && old.receiverSpanMbps == nil)
        #expect(Record.readableSchemas.contains("peerbench.record/3"))
        #expect(old.json["rtt_method"] == .null, "written back with every key")
    }

    /// Schema /5 only added `congestion_control` and `cpu_seconds`: a /4 line reads with
    /// both null, and a /5 record carries what the measurement said.
    @Test func aVersion4RecordStillReadsAndA5CarriesControllerAndCPU() throws {
        let old = try olderRecord("peerbench.record/4", without: ["congestion_control", "cpu_seconds"])
        #expect(old.congestionControl == nil && old.cpuSeconds == nil)
        #expect(old.json["cpu_seconds"] == .null, "written back with every key")

        var m = TransportMeasurement()
        m.congestionControl = "reno"
        m.cpuSeconds = EndPair(client: 0.25, server: nil)
        let r = record(of: m).json
        #expect(r["congestion_control"] == "reno")
        #expect(r["cpu_seconds"]?["client"]?.doubleValue == 0.25 && r["cpu_seconds"]?["server"] == .null)
        // A cell that measured nothing still has the object, both sides null.
        let failed = record(of: TransportMeasurement()).json
        #expect(failed["cpu_seconds"]?.objectValue?.members.count == 2 && failed["cpu_seconds"]?["client"] == .null)
    }

    /// A fixture record as an older schema wrote it: `schema` set, `keys` absent.
    func olderRecord(_ schema: String, without keys: [String]) throws -> Record {
        var json = try #require(Fixtures.record("c1").json.objectValue)
        json["schema"] = .string(schema)
        for key in keys { json[key] = nil }
        return try Record(json: .object(json))
    }

    /// A record of `measurement` for a 1 000 x 1 000 B cell.
    func record(of m: TransportMeasurement) -> Record {
        let transport = TransportSpec(plugin: "tcp", label: "tcp", options: nil, effectiveOptions: .null, usesPayload: true, index: 0)
        let cell = Cell(
            id: "c", repetition: 1, seed: 1, transport: transport, environment: EnvironmentSpec(name: "lab", kind: .builtIn, json: .null),
            distance: .meters(1), payload: Payload(count: 1_000, size: 1_000))
        return Record(
            runID: "r", cell: cell, link: ResolvedLink(environment: "lab", distanceMeters: 1, distanceLabel: "1"), linkMode: .none,
            counters: nil, status: .ok, error: nil, startedAt: Date(timeIntervalSince1970: 0), totalSeconds: 1, measurement: m)
    }

    @Test func theStudysDataRateIsReceivedBytesOverTheReceiversSpan() throws {
        var m = TransportMeasurement()
        m.bulkNanos = 2_000_000_000
        m.delivery = Delivery(sentMessages: 1_000, receivedMessages: 990, sentBytes: 1_000_000, receivedBytes: 990_000)
        m.receiverSpanNanos = 800_000_000
        let r = record(of: m)
        // 990 000 B x 8 / 0.8 s = 9.9 Mbit/s, beside throughput's 990 000 x 8 / 2 s = 3.96.
        #expect(r.receiverSpanMbps == 9.9)
        #expect(r.throughputMbps == 3.96)
        #expect(r.json["receiver_span_mbps"] == 9.9)
        // Null below two messages, for a zero span, and where no span was reported.
        m.delivery?.receivedMessages = 1
        #expect(record(of: m).receiverSpanMbps == nil)
        m.delivery?.receivedMessages = 990
        m.receiverSpanNanos = 0
        #expect(record(of: m).receiverSpanMbps == nil)
        m.receiverSpanNanos = nil
        #expect(record(of: m).receiverSpanMbps == nil)
        #expect(record(of: m).json.objectValue?.keys.contains("receiver_span_mbps") == true)
    }

    @Test func theRTTMethodIsWhatThePluginSaysOrPingPongWhenProbesRan() throws {
        var m = TransportMeasurement()
        #expect(record(of: m).rttMethod == nil, "no probes: null")
        #expect(record(of: m).json["rtt_method"] == .null)
        m.rttNanos = [1_000_000, 3_000_000]
        #expect(record(of: m).rttMethod == .pingPong, "a plugin that says nothing ping-pongs")
        m.rttMethod = .pipelined
        let r = record(of: m)
        #expect(r.json["rtt_method"] == "pipelined")
        // Population SD of {1, 3} ms is 1 ms (the sample SD would be 1.414).
        #expect(r.rttMs?.stddev == 1)
        m.rttNanos = []
        m.probesSent = 5
        m.rttMethod = nil
        #expect(record(of: m).rttMethod == .pingPong, "probes that all went unanswered still ran")
        // A plugin names its method before it knows whether a probe goes out: with
        // none sent (`rttProbes` 0, a cell `rttPayloads` leaves out) the record says null.
        m.probesSent = 0
        m.rttMethod = .pipelined
        #expect(record(of: m).rttMethod == nil, "no probe ran")
        #expect(record(of: m).json["rtt_method"] == .null)
        #expect(record(of: m).rttMs == nil)
        #expect(RecordsCSV.columns.contains("rtt_method") && RecordsCSV.columns.contains("receiver_span_mbps"))
        #expect(RecordsCSV.columns.firstIndex(of: "rtt_method")! > RecordsCSV.columns.firstIndex(of: "rtt_ms.stddev")!)
    }

    @Test func aForeignLineIsNotARecordAndSaysWhy() throws {
        #expect(throws: (any Error).self) { try Record(json: JSONParser.parse(#"{"schema":"peerbench.record/9","hello":"world"}"#)) }
        do {
            _ = try Record(json: JSONParser.parse(#"{"schema":"peerbench.record/1"}"#))
            Issue.record("a bare schema line decoded as a record")
        } catch {
            #expect(JSONCoding.describe(error).contains("missing key"))
        }
    }

    /// A measurement with every field set; the Mirror check makes a new field that this
    /// fixture does not set fail here, so the round trip below always covers every field.
    func fullMeasurement() -> TransportMeasurement {
        var m = TransportMeasurement()
        m.connectNanos = 1_234_567
        m.rttNanos = [1, 2, 3_000_000_000]
        m.probesSent = 4
        m.rttMethod = .pipelined
        m.receiverSpanNanos = 4_000_000_000
        m.bulkNanos = 5_000_000_000
        m.delivery = Delivery(sentMessages: 10, receivedMessages: 9, sentBytes: 1280, receivedBytes: 1152, reordered: 1, duplicated: 2)
        m.rfc3550JitterMs = 0.25
        m.rttLoadedNanos = [7, 8]
        m.bulkSeries = BulkSeries(bytes: [100, 200], datagrams: [1, 2])
        m.ranging = [RangingUpdateSample(tNanos: 10, distanceM: 1.5, errorM: -0.02, directionAvailable: true)]
        m.peerLostAtNanos = 9_000_000_000
        m.reconnects = [ReconnectEvent(lostAtNanos: 1, connectedAtNanos: 2, resumedAtNanos: 3, attempts: 4, resentBytes: 5)]
        m.migrations = [MigrationEvent(silentSinceNanos: 1, migratedAtNanos: 2, validatedAtNanos: 3, backAtNanos: 4)]
        m.resumed = true
        m.congestionControl = "cubic"
        m.cpuSeconds = EndPair(client: 0.125, server: 0.5)
        m.byDirection = DirectionalDelivery(
            up: .init(delivery: Delivery(sentMessages: 1, receivedMessages: 1, sentBytes: 8, receivedBytes: 8), nanos: 10),
            down: .init(delivery: Delivery(sentMessages: 2, receivedMessages: 2, sentBytes: 16, receivedBytes: 16), nanos: 20))
        m.transactionNanos = [3_000_000, 4_000_000]
        m.frames = FrameReport(sent: 5, received: 4, late: 1, deadlineNanos: 100_000_000, delayNanos: [0, 1_000, 200_000_000, 5])
        m.status = .partial
        m.error = "cut short"
        m.extra = JSONObject(["quic": ["handshake_confirmed_ms": 0.5], "a": 1])
        return m
    }

    @Test func theWorkerWireCarriesEveryMeasurementField() throws {
        let m = fullMeasurement()
        for child in Mirror(reflecting: m).children {
            let label = child.label ?? "?"
            let described = "\(child.value)"
            #expect(
                described != "nil" && described != "[]" && described != "JSONObject(members: [])",
                "fullMeasurement() leaves \(label) unset: set it so the round trip covers it")
        }
        let line = PluginSession.Outcome.measured(m).json.compactText
        guard case .measured(let back) = try PluginSession.Outcome(json: JSONParser.parse(line)) else {
            Issue.record("reply did not decode as a measurement: \(line)")
            return
        }
        #expect(back == m)
        #expect(back.extra.keys == ["quic", "a"], "extra keeps its order")
    }

    @Test func theWorkerRequestCarriesTheLinkAndA64BitSeed() throws {
        var link = ResolvedLink(environment: "forest", distanceMeters: 30, distanceLabel: "30")
        link.delayMs = 1.5
        link.mcs = 3
        link.connected = false
        let spec = TransportSpec(
            plugin: "tcp", label: "t", options: ["noDelay": true], effectiveOptions: ["noDelay": true],
            usesPayload: true, index: 2)
        let request = CellRequest(
            transport: spec,
            cell: CellContextSeed(
                cellID: "c", repetition: 2, seed: UInt64.max - 1,
                payload: Payload(count: 3, size: 4), rttProbes: 5,
                rttMethod: .pipelined),
            timeoutSeconds: 9.5, cellTimeoutSeconds: 10, link: link,
            client: Endpoint(address: "10.0.0.1", namespace: NetworkNamespace(name: "pb-1-c")),
            server: Endpoint(address: "10.0.0.2"))
        let back = try CellRequest(json: JSONParser.parse(request.json.compactText))
        #expect(back.json == request.json)
        #expect(back.cell.seed == UInt64.max - 1)
        #expect(back.link.connected == false && back.link.mcs == 3)
        #expect(back.client.namespace?.name == "pb-1-c" && back.server.namespace == nil)
        #expect(back.cell.rttMethod == .pipelined)
        // A runner from before `rttMethod` sends no key: ping-pong.
        var cell = try #require(request.json["cell"]?.objectValue)
        cell["rtt_method"] = nil
        let seed = try JSONCoding.decode(CellContextSeed.self, from: .object(cell))
        #expect(seed.rttMethod == .pingPong)
    }

    @Test func integersBeyond2To53AreRefusedNotRounded() {
        #expect(throws: EncodingError.self) { try JSONCoding.encode(["n": UInt64(1) << 60]) }
    }

    @Test func manifestRoundTripsAndAForeignOneIsNamed() throws {
        let m = try Fixtures.manifest(hash: "h")
        let back = try Manifest(bytes: Array(m.json.prettyText.utf8))
        #expect(back == m)
        #expect(m.json.objectValue?.keys.first == "schema")
        #expect { try Manifest(bytes: Array("{}".utf8)) } throws: { "\($0)".contains("not a peerbench manifest") }
        #expect { try Manifest(bytes: Array("[1,2]".utf8)) } throws: { "\($0)".contains("holds an array") }
    }
}

/// One CSV escaper for every CSV PeerBench writes (records.csv, compare's CSV): a field
/// with a comma, a quote, LF or CR is quoted with inner quotes doubled (RFC 4180), so a
/// spreadsheet reads it back as one field. compare's own escaper left CR unquoted.
@Suite struct CSVFieldTests {
    @Test func fieldsThatWouldSplitAreQuoted() {
        #expect(RecordsCSV.quoted("plain") == "plain")
        #expect(RecordsCSV.quoted("a,b") == "\"a,b\"")
        #expect(RecordsCSV.quoted("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(RecordsCSV.quoted("two\nlines") == "\"two\nlines\"")
        #expect(RecordsCSV.quoted("carriage\rreturn") == "\"carriage\rreturn\"")
        // CR LF is one Character, equal to neither CR nor LF: it must be found all the same.
        #expect(RecordsCSV.quoted("windows\r\nline") == "\"windows\r\nline\"")
    }
}
