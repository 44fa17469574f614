import Foundation
import PeerBenchPlugin
import PeerBenchSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A ranging session with one peer: the emulation's `NISession`.
///
/// ```swift
/// let session = try NearbySession(radioAddress: "127.0.0.1")
/// send(session.discoveryToken.serialized())               // any out-of-band channel
/// let peer = try DiscoveryToken(serialized: receivedBytes) // throws NIError(.invalidConfiguration)
/// try session.run(NearbyPeerConfiguration(peerToken: peer))
/// for await event in session.events {
///     if case .didUpdate(let objects) = event { print(objects[0].distance as Any) }
/// }
/// ```
///
/// The session's emulated UWB radio is a UDP socket; ranging rounds really cross
/// the network to the peer's session (docs/protocol/uwb.md), so a lost, silent or
/// ended peer shows up exactly as Nearby Interaction reports it. The initiator's
/// measurements come from a seeded `RangingModel` of `scene`.
public final class NearbySession: Sendable {
    /// What `NISessionDelegate` would be told, in order.
    public enum Event: Sendable {
        /// New measurements of the peer (`session(_:didUpdate:)`).
        case didUpdate([NearbyObject])
        /// The peer is no longer tracked (`session(_:didRemove:reason:)`); ranging stops.
        case didRemove([NearbyObject], reason: NearbyObject.RemovalReason)
        /// The system suspended the session (`sessionWasSuspended(_:)`).
        case wasSuspended
        /// The suspension is over; call `run` again to resume (`sessionSuspensionEnded(_:)`).
        case suspensionEnded
        /// The session failed and can't be used any more (`session(_:didInvalidateWith:)`).
        case didInvalidate(NIError)
    }

    /// Counters of the ranging frames this session exchanged (emulation only).
    public struct Diagnostics: Sendable {
        /// Initiator: polls sent and responses that matched an outstanding round.
        public var pollsSent = 0
        public var responsesReceived = 0
        /// Responder: polls from the peer and responses sent back.
        public var pollsReceived = 0
        var responsesSent = 0
        /// UDP payload bytes of every frame, both roles, end frames included.
        public var bytesSent = 0
        public var bytesReceived = 0
        /// Frames that were malformed, from another session or for another round.
        var ignoredFrames = 0
        /// Poll-to-response times of the answered rounds, nanoseconds (initiator only).
        public var roundTripNanos: [UInt64] = []
    }

    /// This session's token; send it to the peer.
    public let discoveryToken: DiscoveryToken
    /// The session's events; the stream finishes when the session is invalidated.
    /// Buffers without limit, so a slow consumer loses nothing. Iterate it from one
    /// task for the session's whole life: like every `AsyncStream`, it has a single
    /// consumer, and a dropped iterator ends it.
    public let events: AsyncStream<Event>

    let continuation: AsyncStream<Event>.Continuation
    let socket: Socket
    let seed: UInt64

    /// Why the ranging thread should stop.
    enum Control: Sendable { case run, pause, suspend, invalidate }

    /// What the caller's threads and the ranging thread share.
    struct State {
        var scene: RangingScene
        var configuration: NearbyPeerConfiguration?
        var control: Control = .run
        var engineRunning = false
        var suspended = false
        var invalidated = false
        var model: RangingModel?
        var nextRound: UInt32 = 0
        var diagnostics = Diagnostics()
    }

    let state: Mutex<State>
    /// `run` sleeps on it until the ranging thread has ended; `engineRunning` turns
    /// false only while it is held, so that wake-up is never missed.
    let engineEnded = NSCondition()

    /// Creates a session and its emulated radio.
    /// - Parameters:
    ///   - deviceClass: what this device is (a watch's peer gets no direction).
    ///   - chip: this device's UWB chip generation (sets the reach).
    ///   - radioAddress: the numeric address the peer reaches this device at; the
    ///     radio's UDP port is chosen by the system and written into the token.
    ///   - scene: the ground truth an initiator measures (change it any time).
    ///   - seed: makes the token and the measurements reproducible; nil draws one.
    public convenience init(
        deviceClass: DeviceClass = .phone, chip: ChipGeneration = .second, radioAddress: String = "127.0.0.1",
        scene: RangingScene = RangingScene(distanceMeters: 1), seed: UInt64? = nil
    ) throws(NIError) {
        try self.init(deviceClass: deviceClass, chip: chip, radio: Endpoint(address: radioAddress), scene: scene, seed: seed)
    }

    /// Creates a session whose radio binds on a server endpoint (`Endpoint.bindServer`:
    /// its data ports and allowed peer), as the responder of a cell does.
    public init(
        deviceClass: DeviceClass = .phone, chip: ChipGeneration = .second, radio: Endpoint,
        scene: RangingScene = RangingScene(distanceMeters: 1), seed: UInt64? = nil
    ) throws(NIError) {
        let radioAddress = radio.address
        // Only the choice of seed may be non-reproducible; everything after it is seeded.
        let seed = seed ?? UInt64.random(in: 0...UInt64.max)
        self.seed = seed
        state = Mutex(State(scene: scene))
        do {
            let s = try Socket(family: SocketAddress(host: radioAddress, port: 0).family, type: Int32(SOCK_DGRAM.rawValue))
            _ = try radio.bindServer(s)
            try s.setBufferSizes(1 << 20)
            socket = s
            let bound = try s.localAddress()
            var rng = SeededRandom(seed: seed, stream: "uwb.token.\(deviceClass.rawValue)")
            discoveryToken = .generate(
                deviceClass: deviceClass, chip: chip,
                rangingEndpoint: SocketAddress(host: radioAddress, port: bound.port), using: &rng)
        } catch {
            throw NIError(.sessionFailed, "could not open the emulated UWB radio on \(radioAddress): \(error)")
        }
        (events, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .unbounded)
    }

    deinit {
        continuation.finish()
    }

    /// The ground truth the initiator measures; set it to move the peer.
    public var scene: RangingScene {
        get { state.withLock { $0.scene } }
        set { state.withLock { $0.scene = newValue } }
    }

    /// The configuration of the last `run`, nil before the first.
    public var configuration: NearbyPeerConfiguration? { state.withLock { $0.configuration } }

    /// A snapshot of the frame counters.
    public var diagnostics: Diagnostics { state.withLock { $0.diagnostics } }

    /// Starts or resumes ranging with the peer. Running again with the same peer
    /// resumes after `pause`, a removal or a suspension; with another peer, starts over.
    /// - Throws: `.invalidConfiguration` for the session's own token or an
    ///   out-of-range setting; `.sessionFailed` once invalidated or while suspended.
    public func run(_ configuration: NearbyPeerConfiguration) throws(NIError) {
        let peer = configuration.peerDiscoveryToken
        guard peer.sessionIdentifier != discoveryToken.sessionIdentifier else {
            throw NIError(.invalidConfiguration, "the peer token is this session's own token; exchange tokens with the peer first")
        }
        guard (1...1000).contains(configuration.updateRateHz) else {
            throw NIError(.invalidConfiguration, "update rate \(configuration.updateRateHz) Hz is out of range; use 1 to 1000 Hz")
        }
        guard configuration.removalTimeoutSeconds > 0 else {
            throw NIError(.invalidConfiguration, "removal timeout must be positive, got \(configuration.removalTimeoutSeconds) s")
        }
        guard peer.rangingEndpoint.family == discoveryToken.rangingEndpoint.family else {
            throw NIError(
                .incompatiblePeerDevice, "the peer's radio is at \(peer.rangingEndpoint), not reachable from \(discoveryToken.rangingEndpoint)")
        }
        engineEnded.lock()
        defer { engineEnded.unlock() }
        var first = true
        while true {
            let started = try state.withLock { s throws(NIError) -> Bool in
                if first {
                    guard !s.invalidated else { throw NIError(.sessionFailed, "the session was invalidated; create a new session") }
                    guard !s.suspended else { throw NIError(.sessionFailed, "the session is suspended; run it again after .suspensionEnded") }
                    // Stop a running round loop first (it notices within one receive slice).
                    if s.engineRunning { s.control = .pause }
                }
                guard !s.engineRunning else { return false }
                if s.configuration?.peerDiscoveryToken != peer || s.configuration?.updateRateHz != configuration.updateRateHz {
                    s.model = RangingModel(
                        local: discoveryToken, peer: peer, updateRateHz: configuration.updateRateHz, seed: seed,
                        environment: s.scene.environment)
                    s.nextRound = 0
                }
                s.configuration = configuration
                s.control = .run
                s.engineRunning = true
                return true
            }
            if started { break }
            first = false
            engineEnded.wait()  // the ranging thread broadcasts once `engineRunning` is false
        }
        let initiates = isInitiator(configuration)
        CPUAccount.startThread("uwb-ranging", stackSize: 1 << 20) { [self] in self.rangingThread(configuration, initiator: initiates) }
    }

    /// Stops ranging until the next `run` (`NISession.pause()`); the peer will time out.
    public func pause() {
        state.withLock { if $0.engineRunning { $0.control = .pause } }
    }

    /// Ends the session for good (`NISession.invalidate()`): the peer is told and removes
    /// this device with reason `.peerEnded`; the event stream finishes.
    public func invalidate() {
        let tellPeerNow = state.withLock { s -> Bool in
            guard !s.invalidated else { return false }
            s.invalidated = true
            if s.engineRunning {
                s.control = .invalidate
                return false
            }
            return true
        }
        if tellPeerNow { finishInvalidation() }
    }

    /// Emulates the system suspending the session (the app went to the background):
    /// ranging stops at once and `.wasSuspended` is delivered.
    public func suspend() {
        let changed = state.withLock { s -> Bool in
            guard !s.invalidated, !s.suspended else { return false }
            s.suspended = true
            if s.engineRunning { s.control = .suspend }
            return true
        }
        if changed { continuation.yield(.wasSuspended) }
    }

    /// Emulates the end of a suspension: `.suspensionEnded` is delivered; call `run` to resume.
    public func endSuspension() {
        let changed = state.withLock { s -> Bool in
            guard !s.invalidated, s.suspended else { return false }
            s.suspended = false
            return true
        }
        if changed { continuation.yield(.suspensionEnded) }
    }

    func isInitiator(_ c: NearbyPeerConfiguration) -> Bool {
        switch c.role {
        case .initiator: true
        case .responder: false
        case .automatic: discoveryToken.sessionIDBytes.lexicographicallyPrecedes(c.peerDiscoveryToken.sessionIDBytes)
        }
    }

    /// Tells the peer (three end frames, against loss) and closes the stream.
    func finishInvalidation() {
        if let peer = configuration?.peerDiscoveryToken {
            let end = RangingFrame(kind: .end, round: 0, sender: discoveryToken.sessionIDBytes, receiver: peer.sessionIDBytes)
            for _ in 0..<3 { _ = try? send(end, to: peer.rangingEndpoint) }
        }
        socket.shutdown()
        continuation.finish()
    }

    @discardableResult
    func send(_ frame: RangingFrame, to address: SocketAddress) throws -> Int {
        let bytes = frame.encoded()
        _ = try bytes.withUnsafeBytes { try socket.send($0, to: address) }
        state.withLock { $0.diagnostics.bytesSent += bytes.count }
        return bytes.count
    }
}
