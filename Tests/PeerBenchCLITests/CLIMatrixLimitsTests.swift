import Foundation
import Testing

/// What a matrix may expand to is bounded, and checked before anything is expanded
/// (issue 16 §3); labels are restricted to a documented character set (§6).
@Suite struct CLIMatrixLimitsTests {
    static let fieldStudyTransports = #"""
        [{"plugin": "tcp", "label": "tcp"}, {"plugin": "tcp", "label": "tcp-nodelay", "options": {"noDelay": true}},
         {"plugin": "udp", "label": "udp"}, {"plugin": "quic", "label": "quic"}, {"plugin": "uwb", "label": "uwb"}]
        """#

    static func matrix(transports: String = fieldStudyTransports, counts: String, sizes: String, extra: String = "") -> String {
        """
        {"name": "big", \(extra) "transports": \(transports),
         "matrix": {"environments": ["underground", "inner-city", "free-field", "forest"], "distances": [1, 10, 30, "max"],
                    "payloads": {"counts": \(counts), "sizes": \(sizes)}}}
        """
    }

    static func list(_ r: ClosedRange<Int>) -> String { "[" + r.map(String.init).joined(separator: ", ") + "]" }

    static func validate(_ text: String) throws -> (CLIResult, String) {
        let dir = CLI.tempDir()
        try CLI.write(text, to: dir + "/m.json")
        return (try CLI.run(["validate", dir + "/m.json"]), dir + "/m.json")
    }

    @Test func theIssuesMatrixOfThreePointEightMillionCellsIsRefusedNamingTheList() throws {
        // counts 1..300 x sizes 1..200: 3 840 016 cells, which took 30 s and 1.4 GB to validate.
        let (r, file) = try Self.validate(Self.matrix(counts: Self.list(1...300), sizes: Self.list(1...200)))
        #expect(r.status == 2)
        #expect(r.stderr.contains("peerbench: error: \(file): $.matrix.payloads.counts: has 300 entries; at most 100 are allowed"), "\(r.stderr)")
        #expect(r.stderr.contains("$.matrix.payloads.sizes: has 200 entries; at most 100 are allowed"), "\(r.stderr)")
        #expect(!r.stderr.contains("Fatal error"))
    }

    @Test func aMatrixOverTheCellLimitIsRefusedBeforeExpansion() throws {
        // Within every list limit, yet 100 x 20 payloads x 4 transports x 16 + 16 = 128 016 cells.
        let (r, file) = try Self.validate(Self.matrix(counts: Self.list(1...100), sizes: Self.list(1...20)))
        #expect(r.status == 2)
        #expect(
            r.stderr.contains(
                "peerbench: error: \(file): $.matrix.payloads.counts: the matrix expands to 128016 cells (1 repetitions x 4 environments x 4 distances x 100 counts x 20 sizes x 5 transports), more than the limit of 100000"
            ), "\(r.stderr)")
    }

    @Test func tenThousandRepetitionsOfTheFieldStudyAreRefusedNamingRepetitions() throws {
        // 784 cells x 10 000 = 7.84 M cells, which took 62 s and 2.8 GB to validate.
        let (r, file) = try Self.validate(
            Self.matrix(counts: "[100, 1000, 10000, 100000]", sizes: "[128, 4096, 16384]", extra: #""repetitions": 10000,"#))
        #expect(r.status == 2)
        #expect(r.stderr.contains("peerbench: error: \(file): $.repetitions: the matrix expands to 7840000 cells"), "\(r.stderr)")
    }

    @Test func repetitionsOnTheCommandLineAreCountedToo() throws {
        let dir = CLI.tempDir()
        try CLI.write(Self.matrix(counts: "[100, 1000, 10000, 100000]", sizes: "[128, 4096, 16384]"), to: dir + "/m.json")
        let r = try CLI.run(["run", dir + "/m.json", "--dry-run", "--repetitions", "1000000"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("peerbench: error: --repetitions: the matrix would expand to 784000000 cells"), "\(r.stderr)")
    }

    @Test func aTwentyMegabyteMatrixIsRefusedBeforeItIsParsed() throws {
        let transport = #"{"plugin": "tcp", "label": "t"},"#
        let many = "[" + String(repeating: transport, count: 600_000) + #"{"plugin": "udp"}]"#
        let (r, file) = try Self.validate(Self.matrix(transports: many, counts: "[1]", sizes: "[1]"))
        #expect(r.status == 2)
        #expect(r.stderr.hasPrefix("peerbench: error: \(file): is "), "\(r.stderr)")
        #expect(r.stderr.contains("a matrix may be at most 1048576 bytes"), "\(r.stderr)")
    }

    @Test func tooManyTransportsAreRefused() throws {
        let many = "[" + (1...65).map { #"{"plugin": "tcp", "label": "t\#($0)"}"# }.joined(separator: ",") + "]"
        let (r, file) = try Self.validate(Self.matrix(transports: many, counts: "[1]", sizes: "[1]"))
        #expect(r.status == 2)
        #expect(r.stderr.contains("\(file): $.transports: has 65 entries; at most 64 are allowed"), "\(r.stderr)")
    }

    @Test(arguments: [#"" tcp ""#, #""a\u0000b""#, #""a\nb""#, #""tcp,udp""#, #""tëst""#, "\"" + String(repeating: "x", count: 65) + "\"", #""""#])
    func labelsOutsideTheCharacterSetAreRefused(label: String) throws {
        let (r, file) = try Self.validate(Self.matrix(transports: #"[{"plugin": "tcp", "label": \#(label)}]"#, counts: "[1]", sizes: "[1]"))
        #expect(r.status == 2)
        #expect(r.stderr.contains("\(file): $.transports[0].label: expected a label of 1 to 64 characters from A-Z a-z 0-9 . _ -"), "\(r.stderr)")
    }

    @Test func labelsInsideTheCharacterSetAreAccepted() throws {
        let (r, _) = try Self.validate(
            Self.matrix(
                transports: #"[{"plugin": "tcp", "label": "TCP_nodelay-2.0"}, {"plugin": "udp", "label": "\#(String(repeating: "u", count: 64))"}]"#,
                counts: "[1]", sizes: "[1]"))
        #expect(r.status == 0, "\(r.stderr)")
    }
}
