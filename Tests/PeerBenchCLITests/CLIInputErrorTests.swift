import Foundation
import Testing

/// Bad input gets one line per problem naming the file and JSON path, exit 2, no stack trace.
@Suite struct CLIInputErrorTests {
    @Test func missingMatrixFile() throws {
        let r = try CLI.run(["validate", "/nonexistent/m.json"])
        #expect(r.status == 2)
        #expect(r.stderr == "peerbench: error: /nonexistent/m.json: file not found (give a matrix file, or run from a folder that has matrix.json)\n")
    }

    @Test func invalidJSONNamesLineAndColumn() throws {
        let dir = CLI.tempDir()
        try CLI.write("{\n  \"name\": \"x\"\n  \"seed\": 1\n}", to: dir + "/m.json")
        let r = try CLI.run(["validate", dir + "/m.json"])
        #expect(r.status == 2)
        #expect(r.stderr == "peerbench: error: \(dir)/m.json: invalid JSON at line 3, column 3: expected ',' or '}' in object, found '\"'\n")
    }

    @Test func typoInAKeyIsReportedWithItsPath() throws {
        let dir = CLI.tempDir()
        try CLI.write(
            #"{"repetitons": 2, "transports": [{"plugin": "tcp"}], "matrix": {"environments": ["forest"], "distances": [1], "payloads": {"counts": [1], "sizes": [0]}}}"#,
            to: dir + "/m.json")
        let r = try CLI.run(["validate", dir + "/m.json"])
        #expect(r.status == 2)
        let lines = r.stderr.split(separator: "\n").map(String.init)
        #expect(
            lines == [
                "peerbench: error: \(dir)/m.json: $.repetitons: unknown key \"repetitons\"; did you mean \"repetitions\"?",
                "peerbench: error: \(dir)/m.json: $.matrix.payloads.sizes[0]: a message size in bytes must be at least 1, got 0",
            ])
    }

    @Test func udpSizeItCannotCarry() throws {
        let dir = CLI.tempDir()
        try CLI.write(
            #"{"transports": [{"plugin": "udp"}], "matrix": {"environments": ["forest"], "distances": [1], "payloads": {"counts": [1], "sizes": [128, 70000]}}}"#,
            to: dir + "/m.json")
        let r = try CLI.run(["validate", dir + "/m.json"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("$.matrix.payloads.sizes[1]: transport \"udp\":"))
        #expect(r.stderr.contains("70000"))
    }

    @Test func unknownTransportLabelOnTheCommandLine() throws {
        let r = try CLI.run(["run", "matrices/quick.json", "--out", CLI.tempDir() + "/o", "--transports", "tcp,sctp"])
        #expect(r.status == 2)
        #expect(r.stderr.hasPrefix("peerbench: error: --transports: unknown transport label \"sctp\""))
    }

    @Test func unwritableOutFolder() throws {
        let dir = CLI.tempDir()
        try CLI.write("x", to: dir + "/file")
        let r = try CLI.run(["run", "matrices/quick.json", "--out", dir + "/file", "--link", "none"])
        #expect(r.status == 2)
        #expect(r.stderr == "peerbench: error: --out: \(dir)/file exists and is not a folder\n")
    }

    @Test func badArgumentIsAUsageError() throws {
        let r = try CLI.run(["run", "--repetitions", "0", "--out", "/tmp/x"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("--repetitions must be at least 1"))
    }
}
