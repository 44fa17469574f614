/// The files a new transport starts from. `__Name__` becomes the type stem (`Echo`),
/// `__name__` the matrix plugin name (`echo`). The plugin is a complete, minimal
/// transport — the standard workload over one plain TCP connection — so the new module
/// builds and its test passes before its author changes a line.
enum Templates {
    static func fill(_ template: String, _ name: TransportName) -> String {
        sortingImports(
            template.replacingOccurrences(of: "__Name__", with: name.typeStem).replacingOccurrences(of: "__name__", with: name.pluginName))
    }

    /// The file's leading `import` lines in the order `swift format` wants (by module
    /// name), so a generated file passes `swift format lint` whatever the new module is called.
    static func sortingImports(_ source: String) -> String {
        var lines = source.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let count = lines.prefix { $0.hasPrefix("import ") || $0.hasPrefix("public import ") }.count
        let module = { (line: String) in line.split(separator: " ").last.map(String.init) ?? line }
        lines.replaceSubrange(0..<count, with: lines[0..<count].sorted { module($0) < module($1) })
        return lines.joined(separator: "\n")
    }

    static func plugin(_ name: TransportName) -> String { fill(pluginTemplate, name) }
    static func test(_ name: TransportName) -> String { fill(testTemplate, name) }

    static let pluginTemplate = #"""
        public import PeerBenchJSON
        public import PeerBenchPlugin
        import PeerBenchSockets
        import PeerBenchStreams
        public import PeerBenchSystem

        #if canImport(Glibc)
            import Glibc
        #endif

        /// __Name__: a transport plugin made by `swift package new-transport __Name__`.
        ///
        /// It starts as a working minimal transport, the way the built-in TCP plugin is made:
        /// PeerBenchStreams' standard stream workload (`StreamWorkloadClient`/`StreamWorkloadServer`,
        /// docs/protocol/tcp.md's frames) over one plain TCP connection, with its socket
        /// scopes (`serveOneConnection`, `withStreamConnection`) owning the sockets' lifetimes
        /// and cancellation. It builds, runs and keeps the plugin contract as generated.
        /// Replace the connection with your protocol and keep the shape; docs/PLUGINS.md
        /// explains each part.
        public struct __Name__Plugin: TransportPlugin {
            public static let descriptor = PluginDescriptor(
                name: "__name__",
                summary: "TODO: say in one line what __name__ is (generated: the standard workload over TCP).",
                options: [
                    OptionDescriptor("noDelay", type: "bool", default: "true", help: "Disable Nagle's algorithm (TCP_NODELAY) on both sides.")
                ]
            )

            public let noDelay: Bool

            /// Reads every option through `options`: unknown keys are rejected after this returns.
            public init(options: PluginOptions) throws {
                noDelay = try options.bool("noDelay", default: true)
            }

            public init(noDelay: Bool = true) {
                self.noDelay = noDelay
            }

            /// The frames carry at most 64 MiB per message: say so before anything runs.
            public func check(payload: Payload, path: JSONPath) -> [InputProblem] {
                guard payload.size > StreamFraming.maxMessageSize else { return [] }
                return [InputProblem(path: path.description, "__name__: a message of \(payload.size) bytes exceeds the limit of 64 MiB")]
            }

            /// The stream workload runs every kind (docs/WORKLOADS.md): download, bidir,
            /// request-response, isochronous. Refuse here what your transport cannot run.
            public func check(workload: WorkloadSpec, path: JSONPath) -> [InputProblem] {
                workload.check(transport: "__name__", uploadOnly: [], path: path)
            }

            public func startServer(_ cell: CellContext) async throws -> any TransportServer {
                let noDelay = noDelay
                // Listens now; accepts one client and answers the workload in the background.
                return try await cell.serveOneConnection("__name__") { connection in
                    try Self.configure(connection, noDelay: noDelay)
                    try StreamWorkloadServer.serve("__name__", over: connection, greeting: Self.greeting)
                }
            }

            public func runClient(_ cell: CellContext, server: SocketAddress) async throws -> TransportMeasurement {
                let noDelay = noDelay
                // Blocking socket work runs on its own thread inside the client's namespace.
                return try await cell.client.run("__name__-client") {
                    var m = TransportMeasurement()
                    try cell.withStreamConnection("__name__", to: server, configure: { try Self.configure($0, noDelay: noDelay) }) { s, connectNanos in
                        m.connectNanos = connectNanos
                        let workload = StreamWorkloadClient("__name__", over: s)
                        try workload.greet(Self.greeting)
                        try workload.probe(count: cell.rttProbes, method: cell.rttMethod, spacingNanos: cell.rttProbeSpacingNanos, into: &m)
                        // The cell's workload: the upload of the payload unless the matrix says otherwise.
                        try workload.run(cell.workload, payload: cell.payload, into: &m)
                        try workload.goodbye()
                    }
                    return m
                }
            }

            private static func configure(_ s: Socket, noDelay: Bool) throws {
                if noDelay { try s.setOption(Int32(IPPROTO_TCP), TCP_NODELAY, Int32(1), "TCP_NODELAY") }
            }

            /// HELLO body: the plugin's name, so a client never measures against another protocol.
            static let greeting: StreamGreeting = {
                let body = Array("__name__".utf8)
                var frame = [UInt8](repeating: 0, count: StreamFraming.headerSize)
                frame.withUnsafeMutableBytes { StreamFraming.writeHeader(.hello, bodyLength: body.count, to: $0.baseAddress!) }
                return StreamGreeting(frame: frame + body, name: "__name__") { Array($0) == body }
            }()
        }

        """#

    static let testTemplate = #"""
        import PeerBenchPlugin
        import Testing
        import TransportTestSupport
        import __Name__Transport

        /// Generated by `swift package new-transport __Name__`: the plugin keeps the plugin
        /// contract every transport keeps (TransportTestSupport's `PluginContract`). Keep it
        /// passing as you make the transport your own, and add tests of what is yours.
        @Suite(.timeLimit(.minutes(3))) struct __Name__PluginTests {
            @Test func keepsThePluginContract() async throws {
                try await PluginContract(__Name__Plugin.self, badOption: ("noDelay", "1")).checkAll()
            }
        }

        """#
}
