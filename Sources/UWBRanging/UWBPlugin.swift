public import PeerBenchPlugin
import PeerBenchSockets
public import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

/// `uwb`: emulated Nearby Interaction ranging. A cell exchanges discovery tokens
/// over the chosen out-of-band channel through the cell's link (`connect_ms`),
/// ranges for `durationSeconds` with the server as the responding peer, and
/// records the ranging figures under `extra.uwb`. Payloads do not apply.
public struct UWBPlugin: TransportPlugin {
    public static let descriptor = PluginDescriptor(
        name: "uwb",
        summary: "Emulated UWB ranging (Nearby Interaction): discovery-token exchange, then distance/direction updates",
        options: UWBOptions.descriptors,
        usesPayload: false
    )

    public let options: UWBOptions

    public init(options: PluginOptions) throws {
        self.options = try UWBOptions(options)
    }

    public init(_ options: UWBOptions) {
        self.options = options
    }

    public func estimatedSeconds(payload: Payload?, rttProbes: Int, link: ResolvedLink) -> Double? {
        // Exchange (≤ 6 connection intervals on GATT) + start-up and teardown (0.25 s
        // measured on the emulated link; up to 0.5 s when the radio must first sync) + ranging.
        options.durationSeconds + 0.25 + (options.tokenChannel == .gatt ? 6 * options.gattConnectionIntervalMs / 1000 : 0.05)
    }

    public func startServer(_ cell: CellContext) async throws -> any TransportServer {
        try await UWBServer(cell, options: options)
    }

    public func runClient(_ cell: CellContext, server: SocketAddress) async throws -> TransportMeasurement {
        guard let truth = cell.link.distanceMeters else {
            throw TransportError(
                "uwb: environment \(cell.link.environment) at distance \"\(cell.link.distanceLabel)\" has no ground-truth distance to range against")
        }
        let scene = RangingScene(
            distanceMeters: truth, bearingDegrees: options.bearingDegrees,
            environment: .named(cell.link.environment))
        let channel = options.tokenChannel.channel(connectionIntervalMs: options.gattConnectionIntervalMs)
        let (session, connection) = try await cell.client.run("uwb-client-session") {
            (
                try NearbySession(deviceClass: .phone, chip: options.chip, radioAddress: cell.client.address, scene: scene, seed: cell.seed),
                try Socket(family: server.family, type: Int32(SOCK_STREAM.rawValue))
            )
        }
        cell.track(session.socket)
        defer { cell.untrack(session.socket) }
        cell.cancellation.onCancel { session.invalidate() }
        // The channel's connection stays up while ranging (as a Multipeer session or a
        // BLE connection would); closing it tells the server the cell is over.
        return try await cell.withSocket(connection) { connection in
            let exchange = try await cell.client.run("uwb-client-exchange") {
                let start = MonotonicClock.now()
                try connectTokenChannel(connection, to: server)
                return try channel.exchange(session.discoveryToken.serialized(), over: connection, start: start, deadline: cell.deadline)
            }
            return try await range(cell, session: session, exchange: exchange, truth: truth)
        }
    }

    /// Ranges as the initiator for `durationSeconds` and measures it.
    private func range(_ cell: CellContext, session: NearbySession, exchange: TokenExchange, truth: Double) async throws -> TransportMeasurement {
        let peer: DiscoveryToken
        do {
            peer = try exchange.peerToken()
        } catch {
            session.invalidate()
            throw TransportError("uwb: the peer's token was rejected: \(error)")
        }
        var report = RangingReport(
            tokenBytes: session.discoveryToken.serialized().count, exchangeNanos: exchange.elapsedNanos,
            configuredRateHz: options.updateRateHz, groundTruthMeters: truth)
        if options.tokenChannel == .gatt {
            report.gattOperations = exchange.writeOperations + exchange.readOperations
            report.gattTransactions = exchange.totalOperations
        }

        let runAt = MonotonicClock.now()
        do {
            try session.run(
                NearbyPeerConfiguration(
                    peerToken: peer, role: .initiator, updateRateHz: options.updateRateHz,
                    removalTimeoutSeconds: options.removalTimeoutSeconds))
        } catch {
            session.invalidate()
            throw TransportError("uwb: \(error)")
        }
        let rangingNanos = min(UInt64(options.durationSeconds * 1e9), cell.remainingNanos)
        let timer = Task {
            try? await Task.sleep(nanoseconds: rangingNanos)
            session.invalidate()
        }
        var failure: NIError?
        var removedAt: UInt64?
        for await event in session.events {
            switch event {
            case .didUpdate(let objects):
                for o in objects {
                    report.updates.append(o)
                    if report.firstRangeNanos == nil, o.distance != nil { report.firstRangeNanos = o.timestamp - runAt }
                }
            case .didRemove(_, let reason):
                report.removalReason = reason
                removedAt = MonotonicClock.now()
                session.invalidate()
            case .didInvalidate(let error):
                failure = error
            case .wasSuspended, .suspensionEnded:
                break
            }
        }
        timer.cancel()

        return Self.measurement(
            exchange: exchange, diagnostics: session.diagnostics, report: report, failure: failure,
            removedAt: removedAt, runAt: runAt)
    }

    /// The cell's measurement from the session's frame counters and the ranging report.
    private static func measurement(
        exchange: TokenExchange, diagnostics d: NearbySession.Diagnostics, report: RangingReport,
        failure: NIError?, removedAt: UInt64?, runAt: UInt64
    ) -> TransportMeasurement {
        var m = TransportMeasurement()
        m.connectNanos = exchange.elapsedNanos
        // Every ranging round is a real poll/response round trip over the link.
        m.rttNanos = d.roundTripNanos
        m.probesSent = d.pollsSent
        m.delivery = Delivery(
            sentMessages: d.pollsSent, receivedMessages: d.responsesReceived,
            sentBytes: d.pollsSent * RangingFrame.pollSize, receivedBytes: d.responsesReceived * RangingFrame.responseSize)
        if let failure {
            m.status = .failed
            m.error = "uwb: \(failure)"
        }
        m.extra["uwb"] = report.json
        // The removal's reason is in extra.uwb.removal_reason; its time feeds scenario.detect_ms.
        m.peerLostAtNanos = removedAt
        m.ranging = report.samples(since: runAt)
        return m
    }
}
