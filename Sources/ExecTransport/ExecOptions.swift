import PeerBenchJSON
import PeerBenchPlugin

/// The `exec` plugin's matrix options: the two command lines and where they run.
struct ExecOptions: Sendable {
    /// The server's command line (argv), or nil for a transport that needs no server process.
    var server: [String]?
    /// The client's command line (argv); it prints the measurement JSON on stdout.
    var client: [String]
    /// Directory relative command paths are resolved against and the commands run in;
    /// nil = the working directory of `peerbench`.
    var workingDirectory: String?
    /// Handed verbatim to both commands as the cell document's `config`.
    var config: JSONValue?
    /// How long the server may take to exit after the client has finished, seconds.
    var serverExitGraceSeconds: Double

    init(
        server: [String]?, client: [String], workingDirectory: String? = nil, config: JSONValue? = nil,
        serverExitGraceSeconds: Double = 5
    ) {
        self.server = server
        self.client = client
        self.workingDirectory = workingDirectory
        self.config = config
        self.serverExitGraceSeconds = serverExitGraceSeconds
    }

    init(_ options: PluginOptions) throws(InputError) {
        server = try options.strings("server")
        let client = try options.strings("client")
        workingDirectory = try options.string("workingDirectory", default: nil)
        config = try options.json("config")
        serverExitGraceSeconds = try options.double("serverExitGraceSeconds", default: 5, range: 0...3_600) ?? 5
        guard let client, !client.isEmpty, !client[0].isEmpty else {
            throw InputError(
                path: options.path.key("client").description,
                "exec needs a client command line (check the key is spelled \"client\"), e.g. \"client\": [\"plugins/iperf3/iperf3-peer\", \"client\", \"--tcp\"]"
            )
        }
        if let server, server.isEmpty || server[0].isEmpty {
            throw InputError(path: options.path.key("server").description, "the server command line is empty; leave the key out for no server")
        }
        self.client = client
    }

    static let descriptors: [OptionDescriptor] = [
        OptionDescriptor(
            "server", type: "[string]", default: "null",
            help: "Server command line, run in the server endpoint; prints {\"port\": N} once it listens (docs/protocol/exec.md)."),
        OptionDescriptor(
            "client", type: "[string]", default: "(required)",
            help: "Client command line, run in the client endpoint; prints one measurement JSON object on stdout."),
        OptionDescriptor(
            "workingDirectory", type: "string", default: "null",
            help: "Directory the commands run in and relative command paths resolve against; null = peerbench's own."),
        OptionDescriptor(
            "config", type: "any", default: "null",
            help: "Passed verbatim to both commands as the cell document's \"config\"."),
        OptionDescriptor(
            "serverExitGraceSeconds", type: "number", default: "5",
            help: "How long the server may take to exit after the client finished before it is killed (0-3600)."),
    ]
}
