import PeerBenchPlugin
import QUICTransport
import Testing

/// serve refuses every option a plugin declares as a `path` when a client sends it
/// (issue 24, finding 5; docs/PLUGINS.md): the quic plugin's files must be declared so.
@Suite struct QUICFileOptionTests {
    @Test func theFileOptionsAreDeclaredAsPaths() {
        let paths = QUICPlugin.descriptor.options.filter { $0.type == "path" }.map(\.key).sorted()
        #expect(paths == ["caFile", "certFile", "clientCertFile", "clientKeyFile", "keyFile"])
    }
}
