import Foundation
import PeerBenchJSON
import PeerBenchPlugin
import Testing

@testable import PeerBenchAnalysis
@testable import PeerBenchCore

/// The field study's CSV files as `compare --measured` reads them: both kinds, RFC 4180
/// quoting, the default mapping, and each error with the file:line it names.
@Suite struct MeasuredCSVTests {
    static let rttHeader = "Transport Protocol,Scenario,Distance (m),Average RTT (ms),Jitter (ms),distance_m,file"

    func read(_ text: String, path: String = "f.csv", mapping: MeasuredMapping = .fieldStudy2025) throws(InputError) -> MeasuredCSV {
        try MeasuredCSV.parse(Array(text.utf8), path: path, mapping: mapping)
    }

    func refusal(_ text: String) -> String? {
        do {
            _ = try read(text)
            return nil
        } catch { return error.description }
    }

    @Test func rttKindWithQuotingCRLFAndAQuotedLineBreak() throws {
        // Line 2: quoted place, a comma and a doubled quote in `file`; line 3 holds a line
        // break inside quotes, so the row after it starts on line 5; CRLF throughout.
        let text =
            Self.rttHeader + "\r\n"
            + "TCP,\"Inner City\",30,46.5,11.25,,\"a,\"\"b\"\".csv\"\r\n"
            + "tcp,Forest,10,36,9.2,10,\"two\r\nlines\"\r\n"
            + "TCP, Underground ,1,34,9,1,c.csv\r\n"
        let f = try read(text)
        #expect(f.kind == .rtt && f.warnings.isEmpty)
        #expect(f.tests.count == 3)
        let a = f.tests[0]
        // No distance_m: the label 30 stands for 5 m (the study's label map).
        #expect(a.transport == "tcp" && a.place == "inner-city" && a.distanceM == 5 && a.averageRttMs == 46.5 && a.jitterMs == 11.25)
        #expect(a.source == "f.csv:2")
        #expect(f.tests[1].place == "forest" && f.tests[1].distanceM == 10 && f.tests[1].source == "f.csv:3")
        #expect(f.tests[2].place == "underground" && f.tests[2].source == "f.csv:5", "the quoted line break counts as a line")
        #expect(CSVRecords.parse(Array("x,\"a,\"\"b\"\".csv\"\n".utf8))[0].fields == ["x", "a,\"b\".csv"])
    }

    @Test func transferKindWithColumnsInAnyOrderAndDistanceM() throws {
        let text =
            "Number of Packages,Package Size (Bytes),Transport Protocol,Scenario,Distance (m),Transfer Speed (Mbps),Package Loss (%),distance_m\n"
            + "100,128,TCP,Field,30,5.389763,0,5\n"
            + "10000,9216,TCP,Field,10,139,0.5,7.5\n"
        let f = try read(text)
        #expect(f.kind == .transfer && f.warnings.isEmpty)
        let t = f.tests[1]
        #expect(t.count == 10000 && t.size == 9216 && t.speedMbps == 139 && t.lossPercent == 0.5)
        #expect(t.distanceM == 7.5, "distance_m wins over the label")
        #expect(f.tests[0].distanceM == 5 && f.tests[0].place == "free-field")
    }

    @Test func badRowsAreSkippedEachWithOneWarningNamingFileLineAndColumn() throws {
        let text =
            Self.rttHeader + "\n"
            + "TCP,Field,1,8.650.004883,11,1,a\n"  // 2: two decimal points
            + "TCP,Field,1,50,N/A,1,a\n"  // 3
            + "TCP,Field,1,50\n"  // 4: too few fields
            + "TCP,Moon,1,50,9,1,a\n"  // 5: unknown place
            + "TCP,Field,20,50,9,,a\n"  // 6: label without distance_m outside the map
            + "SCTP,Field,1,50,9,1,a\n"  // 7
            + "TCP,Field,1,-3,9,1,a\n"  // 8: negative
            + "TCP,Field,1,nan,9,1,a\n"  // 9
            + "TCP,Field,1,\"5\"0,9,1,a\n"  // 10: text after a closing quote
            + "TCP,Field,1,50,9,1,ok.csv\n"  // 11: the one good row
        let f = try read(text)
        #expect(f.tests.count == 1 && f.tests[0].source == "f.csv:11")
        #expect(f.skipped == 9)
        #expect(
            f.warnings == [
                "f.csv:2: column \"Average RTT (ms)\": \"8.650.004883\" is not a number; row skipped",
                "f.csv:3: column \"Jitter (ms)\": \"N/A\" is not a number; row skipped",
                "f.csv:4: 4 fields, the header has 7; row skipped",
                "f.csv:5: column \"Scenario\": unknown place \"Moon\" (the mapping knows \"Field\", \"Forest\", \"Inner City\", \"Underground\"; --measured-map adds others); row skipped",
                "f.csv:6: column \"Distance (m)\": label 20 is not in the distance map (1 -> 1 m, 10 -> 10 m, 30 -> 5 m) and the row has no distance_m; row skipped",
                "f.csv:7: column \"Transport Protocol\": unknown transport \"SCTP\" (the mapping knows \"TCP\", \"UDP\", \"QUIC\"; --measured-map adds others); row skipped",
                "f.csv:8: column \"Average RTT (ms)\": -3 is out of range (>= 0); row skipped",
                "f.csv:9: column \"Average RTT (ms)\": \"nan\" is not a number; row skipped",
                "f.csv:10: not valid CSV: field 4 has text after its closing quote; row skipped",
            ])
    }

    @Test func headersThatAreNotTheStudysRefuseTheFileNamingTheColumn() {
        #expect(
            refusal("Transport Protocol,Scenario,Distance (m),Average RTT (ms),Jitter (ms),Comment\nTCP,Field,1,1,1,x\n")
                == "f.csv:1: unknown column \"Comment\" (an RTT file has \"Transport Protocol\", \"Scenario\", \"Distance (m)\", \"Average RTT (ms)\", \"Jitter (ms)\", \"distance_m\", \"file\")"
        )
        #expect(
            refusal("Transport Protocol,Scenario,Distance (m),Transfer Speed (Mbps),Package Loss (%),Package Size (Bytes)\n")
                == "f.csv:1: missing column \"Number of Packages\" (a transfer file needs \"Transport Protocol\", \"Scenario\", \"Distance (m)\", \"Transfer Speed (Mbps)\", \"Package Loss (%)\", \"Package Size (Bytes)\", \"Number of Packages\")"
        )
        #expect(
            refusal("a,b\n1,2\n")
                == "f.csv:1: neither an RTT file (column \"Average RTT (ms)\") nor a transfer file (column \"Transfer Speed (Mbps)\"); header: a,b")
        #expect(refusal("") == "f.csv: empty file: no header line")
        #expect(refusal(Self.rttHeader + ",file\n") == "f.csv:1: column \"file\" appears twice")
        #expect(refusal("Average RTT (ms),Transfer Speed (Mbps)\n")?.contains("one file holds one kind of test") == true)
    }

    @Test func numbersArePlainDecimalsOnly() {
        #expect(MeasuredCSV.plainNumber("8.650.004883") == nil)
        for bad in ["N/A", "", "nan", "inf", "0x10", "1,5", "1e", ".", "-", "1.5.", "12 3"] { #expect(MeasuredCSV.plainNumber(bad) == nil, "\(bad)") }
        #expect(MeasuredCSV.plainNumber("-1.5") == -1.5 && MeasuredCSV.plainNumber(".5") == 0.5 && MeasuredCSV.plainNumber("2e-3") == 0.002)
        #expect(MeasuredCSV.plainNumber("234.560629") == 234.560629 && MeasuredCSV.plainNumber("+7") == 7)
    }

    @Test func aMapFileReplacesTheSectionsItGivesAndNamesBadKeys() throws {
        let m = try MeasuredMapping.parse(try JSONParser.parse(Array(#"{"places": {"Park": "free-field"}, "distance_labels": {"2": 2.5}}"#.utf8)))
        #expect(m.place("park") == "free-field" && m.place("Field") == nil, "places replaced whole")
        #expect(m.transport("TCP") == "tcp", "transports kept")
        #expect(m.metres(label: 2) == 2.5 && m.metres(label: 30) == nil)
        let bad = try JSONParser.parse(Array(#"{"place": {}, "transports": {"TCP": 3}, "distance_labels": {"x": 1}}"#.utf8))
        do throws(InputError) {
            _ = try MeasuredMapping.parse(bad)
            Issue.record("accepted a bad map")
        } catch {
            #expect(
                error.description == """
                    $.place: unknown key (known: places, transports, distance_labels)
                    $.transports.TCP: expected a non-empty string, got an integer
                    $.distance_labels.x: the label "x" is not a number (the CSV's Distance (m) is)
                    """)
        }
    }

    /// The shipped calibration set reads whole, and its medians are the shared README's.
    @Test func theShippedCalibrationSetReadsWithoutASkippedRow() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        let rtt = try MeasuredCSV.read(path: root + "/data/field-study-2025/tcp-rtt.csv", mapping: .fieldStudy2025)
        let transfer = try MeasuredCSV.read(path: root + "/data/field-study-2025/tcp-transfer.csv", mapping: .fieldStudy2025)
        #expect(rtt.tests.count == 60 && rtt.skipped == 0 && transfer.tests.count == 129 && transfer.skipped == 0)
        let field = try #require(Quartiles(rtt.tests.filter { $0.place == "free-field" }.map { $0.averageRttMs! }))
        // README: field 62.2 [43.6-202] ms.
        #expect(abs(field.median - 62.2) < 0.05 && abs(field.q1 - 43.6) < 0.1 && abs(field.q3 - 202) < 0.5)
        #expect(Set(transfer.tests.map(\.distanceM)) == [1, 5, 10])
    }
}
