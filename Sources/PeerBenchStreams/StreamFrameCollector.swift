import Foundation
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchWorkloads
import Synchronization

/// The client's reading thread of an isochronous flow: the server's frames (down),
/// FRAMES_SENT, and the FRAME_REPORT of the client's frames (up). A reading error
/// shuts the stream down, which ends a write blocked on a full window.
final class FrameCollector: Sendable {
    struct Seen: Sendable {
        var arrivals = FrameArrivals()
        var downSent = 0
        var report: (received: Int, late: Int, delays: [UInt64])?
    }
    private let connection: HelperConnection
    let expectsDown: Bool
    private let expectsReport: Bool
    private let ended = DispatchSemaphore(value: 0)
    private let outcome = Mutex<Result<Seen, any Error>?>(nil)

    init(_ client: StreamWorkloadClient, expectsDown: Bool, expectsReport: Bool) {
        connection = HelperConnection(client: client)
        self.expectsDown = expectsDown
        self.expectsReport = expectsReport
    }

    func start() {
        CPUAccount.startThread("\(connection.client.transport) frame reader") { [self] in
            let result = Result { try read() }
            if case .failure = result { connection.client.stream.shutdown() }
            outcome.withLock { $0 = result }
            ended.signal()
        }
    }

    /// The reader's error if it has ended with one (the cause of a failed write).
    func failure() -> (any Error)? {
        guard ended.wait(timeout: .now() + .seconds(1)) == .success else { return nil }
        ended.signal()
        if case .failure(let e) = outcome.withLock({ $0 }) { return e }
        return nil
    }

    func finish() throws -> Seen {
        ended.wait()
        ended.signal()
        return try outcome.withLock { $0! }.get()
    }

    /// The sender failed: stop the reader (its error goes unread).
    func abandon() { connection.client.stream.shutdown() }

    private func read() throws -> Seen {
        let client = connection.client, reader = client.reader
        let who = "\(client.transport) client"
        var seen = Seen()
        var downDone = !expectsDown
        var delays: [UInt64] = []
        var reportDone = !expectsReport
        var ignored = ReceivedMessages()
        while !(downDone && reportDone) {
            reader.waitingFor = downDone ? "the server's FRAME_REPORT" : "the server's frames"
            guard let frame = try reader.nextControl(counting: &ignored) else {
                throw TransportError("\(who): the server closed the connection during the frames")
            }
            switch frame.type {
            case .frame where expectsDown && !downDone && frame.body.count == 4:
                let seq = frame.body.readBE(UInt32.self, at: 0)
                guard seen.arrivals.record(seq: UInt64(seq), at: reader.filledAt) != .outOfBounds else {
                    throw TransportError("\(who): frame \(seq) is beyond the frames asked for")
                }
            case .framesSent where expectsDown && !downDone && frame.body.count == 4:
                seen.downSent = Int(frame.body.readBE(UInt32.self, at: 0))
                downDone = true
            case .frameReport where expectsReport && !reportDone:
                guard let (received, late) = FrameReportFrames.decode(frame.body, into: &delays), delays.count <= received else {
                    throw TransportError("\(who): malformed FRAME_REPORT (\(frame.body.count) bytes)")
                }
                if delays.count == received {
                    seen.report = (received, late, delays)
                    reportDone = true
                }
            default:
                throw TransportError("\(who): unexpected \(frame.type) frame during the frames")
            }
        }
        return seen
    }
}
