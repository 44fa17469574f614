import ExecTransport
import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import Testing
import TransportTestSupport

/// Matrix mistakes in an exec transport are caught by `validate`, with their JSON path.
@Suite(.timeLimit(.minutes(3))) struct ExecOptionsTests {
    let registry = PluginRegistry([ExecPlugin.self])
    let path = JSONPath.root.key("transports").index(3)

    func problems(_ options: JSONValue) -> String {
        do {
            _ = try registry.make("exec", options: options, path: path)
            return ""
        } catch { return "\(error)" }
    }

    @Test func clientIsRequired() {
        #expect(
            problems(["server": ["./s"]]).hasPrefix(
                "$.transports[3].options.client: exec needs a client command line (check the key is spelled \"client\")"))
    }

    @Test func commandLinesAreArraysOfStrings() {
        #expect(problems(["client": "./c --tcp"]) == "$.transports[3].options.client: expected an array of strings, got a string")
        #expect(problems(["client": ["./c", 5]]) == "$.transports[3].options.client[1]: expected a string, got an integer")
        #expect(problems(["client": ["./c"], "server": []]).contains("the server command line is empty"))
    }

    @Test func unknownKeysAreRejected() {
        #expect(problems(["client": ["./c"], "sever": ["./s"]]).contains(#"$.transports[3].options.sever: unknown option "sever""#))
    }

    @Test func effectiveOptionsRecordWhatRan() throws {
        let (_, effective) = try registry.make("exec", options: ["client": ["./c", "--udp"], "config": ["k": 1]], path: path)
        #expect(effective["client"] == ["./c", "--udp"])
        #expect(effective["server"] == .null)
        #expect(effective["config"] == ["k": 1])
        #expect(effective["serverExitGraceSeconds"] == 5)
    }
}
