public import PeerBenchJSON
public import PeerBenchPlugin
public import PeerBenchSystem

/// UDP over the kernel's stack: sequenced, timestamped datagrams; the receiver counts
/// loss, reordering and duplicates and computes RFC 3550 jitter, and reports them back
/// over the same socket with retransmission (docs/protocol/udp.md).
public struct UDPPlugin: TransportPlugin {
    public static let descriptor = PluginDescriptor(
        name: "udp",
        summary: "Kernel UDP, one datagram per message (fragmented above the MTU); loss, reordering, RFC 3550 jitter.",
        options: UDPOptions.descriptors
    )

    public let options: UDPOptions

    public init(options: PluginOptions) throws {
        self.options = try UDPOptions(options)
    }

    public init(_ options: UDPOptions = UDPOptions()) {
        self.options = options
    }

    /// A message travels in one datagram with a 24-byte header, so at most 65 483 bytes over IPv4.
    /// The receiver keeps a bit per announced datagram, so the count is bounded too.
    public func check(payload: Payload, path: JSONPath) -> [InputProblem] {
        var problems: [InputProblem] = []
        if payload.size > UDPDatagramHeader.maxMessageSize {
            problems.append(
                InputProblem(
                    path: path.description,
                    "udp: a message of \(payload.size) bytes does not fit in one UDP datagram; the largest is \(UDPDatagramHeader.maxMessageSize) bytes (65507-byte IPv4 UDP payload minus the plugin's \(UDPDatagramHeader.size)-byte header)"
                ))
        }
        if payload.count > UDPReceiverStats.maxExpected {
            problems.append(
                InputProblem(
                    path: path.description,
                    "udp: \(payload.count) messages are more than the receiver accounts for in one cell; the most is \(UDPReceiverStats.maxExpected)")
            )
        }
        return problems
    }

    /// Every kind: bulk (up, down, bidir), request-response and isochronous (up, down,
    /// bidir), each message, request, response and frame one datagram
    /// (docs/protocol/udp.md, "Workloads"); a size that does not fit one is refused
    /// naming its key. `reconnect`, `keepAlive` and `loadedRttProbes` run with the upload only.
    public func check(workload: WorkloadSpec, path: JSONPath) -> [InputProblem] {
        var problems = workload.check(
            transport: "udp",
            uploadOnly: [
                ("reconnect", options.reconnect != nil), ("keepAlive", options.keepAlive != nil),
                ("loadedRttProbes", options.loadedRttProbes != nil),
            ], parallelStreams: true, path: path)
        func tooBig(_ key: String, _ what: String, _ bytes: Int, _ most: Int, _ overhead: String) {
            problems.append(
                InputProblem(
                    path: path.key(key).description,
                    "udp: \(what) of \(bytes) bytes does not fit in one UDP datagram; the largest is \(most) bytes (65507-byte IPv4 UDP payload minus \(overhead))"
                ))
        }
        switch workload.kind {
        case .bulk:
            break  // the payload's size is check(payload:)'s
        case .requestResponse(_, let a, let b, _):
            if a > UDPWorkloadLimits.maxRequestBytes {
                tooBig(
                    "requestBytes", "a request", a, UDPWorkloadLimits.maxRequestBytes,
                    "the 24-byte header, the 8-byte response size and an 8-byte authentication tag")
            }
            if b > UDPWorkloadLimits.maxResponseBytes {
                tooBig("responseBytes", "a response", b, UDPWorkloadLimits.maxResponseBytes, "the 24-byte header")
            }
        case .isochronous(let size, _, _, _, _):
            if size > UDPWorkloadLimits.maxFrameBytes {
                tooBig("frameBytes", "a frame", size, UDPWorkloadLimits.maxFrameBytes, "the 24-byte header and an 8-byte authentication tag")
            }
        }
        return problems
    }

    /// A paced run lasts at least its payload over the rate; unpaced, the runner estimates.
    public func estimatedSeconds(payload: Payload?, rttProbes: Int, link: ResolvedLink) -> Double? {
        guard let rate = options.rateMbps, let payload else { return nil }
        let paced = Double(payload.count) * Double(payload.size) * 8 / (rate * 1e6)
        guard let linkRate = link.rateMbps, linkRate < rate else { return paced }
        return nil  // the link is the bottleneck: the runner's own estimate applies
    }

    public func startServer(_ cell: CellContext) async throws -> any TransportServer {
        try await UDPServer.start(cell, options: options)
    }

    public func runClient(_ cell: CellContext, server: SocketAddress) async throws -> TransportMeasurement {
        let options = options
        return try await cell.client.run("udp-client") { try UDPClient.run(cell, server: server, options: options) }
    }
}
