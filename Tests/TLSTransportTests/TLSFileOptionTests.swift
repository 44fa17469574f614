import PeerBenchPlugin
import TLSTransport
import Testing

/// serve refuses every option a plugin declares as a `path` when a client sends it
/// (issue 24, finding 5; docs/PLUGINS.md): the tls plugin's files must be declared so.
@Suite struct TLSFileOptionTests {
    @Test func theFileOptionsAreDeclaredAsPaths() {
        let paths = TLSPlugin.descriptor.options.filter { $0.type == "path" }.map(\.key).sorted()
        #expect(paths == ["caFile", "certFile", "keyFile"])
    }
}
