import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem
import Testing

@testable import RemoteLink

/// serve does not open files a client names (issue 24, finding 5): `/dev/zero` as a
/// certFile grew serve to 2.3 GB, and its error texts told whether /etc/shadow exists.
/// Every option a plugin declares as a `path` is refused in a CELL_REQUEST, by name.
@Suite struct ServeFileOptionsTests {
    /// A stand-in with the quic plugin's name and file options; only its descriptor matters.
    struct FileTaking: TransportPlugin {
        static let descriptor = PluginDescriptor(
            name: "quic", summary: "stand-in",
            options: [
                OptionDescriptor("caFile", type: "path", default: "certs/ca.pem", help: "CA."),
                OptionDescriptor("certFile", type: "path", default: "certs/server.pem", help: "Certificate."),
                OptionDescriptor("keyFile", type: "path", default: "certs/server-key.pem", help: "Key."),
                OptionDescriptor("serverName", type: "string", default: "", help: "Name."),
            ])
        init(options: PluginOptions) throws {
            for d in Self.descriptor.options { _ = try options.string(d.key, default: nil) }
        }
        func startServer(_ cell: CellContext) async throws -> any TransportServer { throw TransportError("not run") }
        func runClient(_ cell: CellContext, server: SocketAddress) async throws -> TransportMeasurement { throw TransportError("not run") }
    }

    static func refusal(_ options: String) throws -> String? {
        var r = ServeLimitsTests.request("quic")
        r.options = try JSONParser.parse(Array(options.utf8))
        do {
            try ServeCell.check(r, registry: PluginRegistry([FileTaking.self]), limits: ServeLimits())
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test(arguments: ["certFile", "keyFile", "caFile"])
    func aFileOptionFromTheClientIsRefusedNamingIt(key: String) throws {
        let refusal = try #require(try Self.refusal(#"{"\#(key)": "/dev/zero"}"#))
        #expect(refusal.contains("\"\(key)\""))
        #expect(refusal.contains("does not open files a client names"))
        // Nothing about the file: serve never looked at it.
        #expect(!refusal.contains("/dev/zero"))
    }

    @Test func optionsThatAreNotFilesStillPass() throws {
        #expect(try Self.refusal(#"{"serverName": "peer"}"#) == nil)
        #expect(try Self.refusal(#"{"certFile": null}"#) == nil)
    }
}
