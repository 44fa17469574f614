import Foundation
import PeerBenchPlugin
import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The ranging rounds, run on the session's own thread (blocking socket calls never
/// touch Swift's cooperative pool). Wire format: docs/protocol/uwb.md.
extension NearbySession {
    /// How a round loop ended.
    enum LoopExit {
        case control(Control)
        case removed(NearbyObject.RemovalReason, NearbyObject)
        case failed(NIError)
    }

    /// Longest single wait, so pause, suspension and invalidation are noticed quickly.
    static let sliceNanos: UInt64 = 20_000_000

    func rangingThread(_ configuration: NearbyPeerConfiguration, initiator: Bool) {
        let exit: LoopExit
        do {
            exit = try initiator ? initiatorLoop(configuration) : responderLoop(configuration)
        } catch let e as NIError {
            exit = .failed(e)
        } catch {
            exit = .failed(NIError(.sessionFailed, "ranging link failed: \(error)"))
        }
        switch exit {
        case .removed(let reason, let object):
            continuation.yield(.didRemove([object], reason: reason))
        case .failed(let error):
            state.withLock { $0.invalidated = true }
            continuation.yield(.didInvalidate(error))
        case .control:
            break
        }
        let mustFinish = engineEnded.withLock { () -> Bool in
            let invalidated = state.withLock { s in
                s.engineRunning = false
                return s.invalidated
            }
            engineEnded.broadcast()
            return invalidated
        }
        if mustFinish { finishInvalidation() }
    }

    private func currentControl() -> Control { state.withLock { $0.control } }

    /// One received frame, or nil when `deadline` passed first (or the slice ended).
    private func receiveFrame(until deadline: UInt64, buffer: inout [UInt8]) throws -> RangingFrame? {
        let now = MonotonicClock.now()
        guard deadline > now else { return nil }
        guard try socket.waitReadable(timeoutNanos: min(deadline - now, Self.sliceNanos)) else { return nil }
        let n = try buffer.withUnsafeMutableBytes { try socket.receive($0, flags: Int32(MSG_DONTWAIT)) } ?? 0
        guard n > 0 else { return nil }
        let frame = RangingFrame(decoding: Array(buffer[0..<n]))
        state.withLock {
            $0.diagnostics.bytesReceived += n
            if frame == nil { $0.diagnostics.ignoredFrames += 1 }
        }
        return frame
    }

    /// Whether `frame` comes from the configured peer and is addressed to this session.
    private func isFromPeer(_ frame: RangingFrame, _ peer: DiscoveryToken) -> Bool {
        let ok = frame.sender == peer.sessionIDBytes && frame.receiver == discoveryToken.sessionIDBytes
        if !ok { state.withLock { $0.diagnostics.ignoredFrames += 1 } }
        return ok
    }

    /// How long a round waits for its response: late responses still count (the
    /// emulated link may hold a frame for an off-channel period of 65–130 ms, longer
    /// than a round at 20–50 Hz), so rounds overlap instead of being lost [A].
    static let maxResponseAgeNanos: UInt64 = 1_000_000_000

    /// Initiator: one poll per round at the update rate. The model's sample for a
    /// round is drawn when its poll leaves (so a round's sample depends only on the
    /// seed and the round number); the answered rounds become updates.
    private func initiatorLoop(_ configuration: NearbyPeerConfiguration) throws -> LoopExit {
        let peer = configuration.peerDiscoveryToken
        let me = discoveryToken.sessionIDBytes, them = peer.sessionIDBytes
        let period = UInt64(1e9 / configuration.updateRateHz)
        let timeout = UInt64(configuration.removalTimeoutSeconds * 1e9)
        let maxAge = min(Self.maxResponseAgeNanos, timeout)
        var (model, round) = state.withLock { ($0.model!, $0.nextRound) }
        defer {
            state.withLock {
                $0.model = model
                $0.nextRound = round
            }
        }

        let runStart = MonotonicClock.now()
        var tick = runStart + UInt64(model.startupDelaySeconds * 1e9)
        var lastDistanceAt = runStart
        var last = NearbyObject(discoveryToken: peer, distance: nil, direction: nil, timestamp: runStart)
        var report: (round: UInt32, mm: UInt32) = (.max, RangingFrame.noDistance)
        var pending: [UInt32: PendingRound] = [:]
        var buffer = [UInt8](repeating: 0, count: 2048)

        while true {
            // Until the next round's slot: collect responses, watch for an end frame.
            while MonotonicClock.now() < tick {
                if case let c = currentControl(), c != .run { return .control(c) }
                guard let f = try receiveFrame(until: tick, buffer: &buffer), isFromPeer(f, peer) else { continue }
                switch f.kind {
                case .end:
                    return .removed(.peerEnded, last)
                case .response:
                    guard let (object, sample) = answer(f, pending: &pending, peer: peer) else { continue }
                    last = object
                    if sample.distance != nil { lastDistanceAt = object.timestamp }
                    if report.round == .max || f.round > report.round {
                        report = (f.round, sample.distance.map { UInt32(min(Double($0) * 1000, 4e9)) } ?? RangingFrame.noDistance)
                    }
                    continuation.yield(.didUpdate([last]))
                case .poll:
                    state.withLock { $0.diagnostics.ignoredFrames += 1 }
                }
            }
            if case let c = currentControl(), c != .run { return .control(c) }
            let now = MonotonicClock.now()
            if now - lastDistanceAt > timeout {
                return .removed(.timeout, NearbyObject(discoveryToken: peer, distance: nil, direction: nil, timestamp: now))
            }
            pending = pending.filter { now - $0.value.sentAt <= maxAge }

            // This round: its sample and its poll, carrying the latest result to report.
            pending[round] = try poll(round, model: &model, reporting: report, from: me, to: them, at: peer.rangingEndpoint)
            round &+= 1
            tick += period
            // After a stall (a paused debugger, an overloaded machine) skip the lost
            // slots rather than firing a burst of polls.
            if MonotonicClock.now() > tick + period { tick = MonotonicClock.now() }
        }
    }

    /// A round the initiator polled: when its poll left and the sample drawn for it.
    typealias PendingRound = (sentAt: UInt64, sample: RangingSample)

    /// The response `f` to an outstanding round: the update it makes (the round's
    /// sample, timed now) and that sample; nil, counted as ignored, when the round
    /// expired or was answered already.
    private func answer(_ f: RangingFrame, pending: inout [UInt32: PendingRound], peer: DiscoveryToken) -> (NearbyObject, RangingSample)? {
        guard let p = pending[f.round], p.sentAt == f.timestamp else {
            state.withLock { $0.diagnostics.ignoredFrames += 1 }  // expired or duplicated
            return nil
        }
        pending[f.round] = nil
        let now = MonotonicClock.now()
        state.withLock {
            $0.diagnostics.responsesReceived += 1
            $0.diagnostics.roundTripNanos.append(now - p.sentAt)
        }
        var object = NearbyObject(discoveryToken: peer, distance: p.sample.distance, direction: p.sample.direction, timestamp: now)
        object.round = f.round
        return (object, p.sample)
    }

    /// This round: draw its sample, send its poll (with the latest result to report).
    private func poll(
        _ round: UInt32, model: inout RangingModel, reporting report: (round: UInt32, mm: UInt32),
        from me: [UInt8], to them: [UInt8], at address: SocketAddress
    ) throws -> PendingRound {
        let sample = model.next(state.withLock { $0.scene })
        var poll = RangingFrame(kind: .poll, round: round, sender: me, receiver: them)
        poll.timestamp = MonotonicClock.now()
        poll.auxiliary = report.round
        poll.reportMillimetres = report.mm
        try send(poll, to: address)
        state.withLock { $0.diagnostics.pollsSent += 1 }
        return (poll.timestamp, sample)
    }

    /// Responder: answers each poll at once; the initiator's reports become updates.
    private func responderLoop(_ configuration: NearbyPeerConfiguration) throws -> LoopExit {
        let peer = configuration.peerDiscoveryToken
        let me = discoveryToken.sessionIDBytes, them = peer.sessionIDBytes
        let timeout = UInt64(configuration.removalTimeoutSeconds * 1e9)
        var lastDistanceAt = MonotonicClock.now()
        var lastReported: UInt32?
        var last = NearbyObject(discoveryToken: peer, distance: nil, direction: nil, timestamp: lastDistanceAt)
        var buffer = [UInt8](repeating: 0, count: 2048)

        while true {
            if case let c = currentControl(), c != .run { return .control(c) }
            let now = MonotonicClock.now()
            if now - lastDistanceAt > timeout {
                return .removed(.timeout, NearbyObject(discoveryToken: peer, distance: nil, direction: nil, timestamp: now))
            }
            guard let f = try receiveFrame(until: now + Self.sliceNanos, buffer: &buffer), isFromPeer(f, peer) else { continue }
            switch f.kind {
            case .poll:
                let arrived = MonotonicClock.now()
                state.withLock { $0.diagnostics.pollsReceived += 1 }
                var response = RangingFrame(kind: .response, round: f.round, sender: me, receiver: them)
                response.timestamp = f.timestamp
                response.auxiliary = UInt32(min(MonotonicClock.now() - arrived, UInt64(UInt32.max)))
                try send(response, to: peer.rangingEndpoint)
                state.withLock { $0.diagnostics.responsesSent += 1 }
                // The poll reports the initiator's previous round, once per round.
                if f.auxiliary != .max, lastReported.map({ f.auxiliary > $0 }) ?? true {
                    lastReported = f.auxiliary
                    let distance = f.reportMillimetres == RangingFrame.noDistance ? nil : Float(f.reportMillimetres) / 1000
                    last = NearbyObject(discoveryToken: peer, distance: distance, direction: nil, timestamp: arrived)
                    last.round = f.auxiliary
                    if distance != nil { lastDistanceAt = arrived }
                    continuation.yield(.didUpdate([last]))
                }
            case .end:
                return .removed(.peerEnded, last)
            case .response:
                state.withLock { $0.diagnostics.ignoredFrames += 1 }
            }
        }
    }
}
