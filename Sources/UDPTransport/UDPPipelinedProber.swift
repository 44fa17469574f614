import Foundation
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchWorkloads
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Pipelined RTT probes over UDP (`RTTMethod.pipelined`, docs/protocol/udp.md): the
/// client's thread sends one PROBE datagram per probe back to back, `seq` 0..<count,
/// without waiting, while this reader takes the ECHOs from the same socket and times
/// each on arrival. A probe whose echo has not come when the reader stops is lost.
///
/// The reader stops once every probe is answered, or `straggler` after the last send,
/// where `straggler` = max(1 s, 4 x the largest RTT seen so far): long enough for the
/// echoes still queued on a slow link, short enough that a lost probe costs about a
/// second, not a timeout per probe. Never past the cell's deadline.
final class UDPPipelinedProber: Sendable {
    /// The least the reader waits after the last send for echoes still on their way.
    static let minStragglerNanos: UInt64 = 1_000_000_000
    /// How often a waiting reader wakes to check whether the last probe has been sent.
    static let tick: UInt64 = 20_000_000

    private let socket: Socket
    private let session: UInt32
    private let count: Int
    private let cell: CellContext
    /// When the last probe was sent; nil while the writer is still sending.
    private let lastSent = Mutex<UInt64?>(nil)
    private let ended = DispatchSemaphore(value: 0)
    /// Set by the reading thread before `ended` is signalled, read after it.
    private let outcome = Mutex<Result<Answers, any Error>?>(nil)

    /// The answered probes' RTTs in send order, the largest, and when the first and last echo came.
    typealias Answers = (rtts: [UInt64], maxRtt: UInt64, firstAt: UInt64?, lastAt: UInt64?)

    init(socket: Socket, session: UInt32, count: Int, cell: CellContext) {
        self.socket = socket
        self.session = session
        self.count = count
        self.cell = cell
    }

    func start() {
        CPUAccount.startThread("udp pipelined echoes") { [self] in run() }
    }

    /// The writer has sent every probe (or stopped at an error): the reader now waits
    /// for stragglers at most as long as the rule above says, then ends.
    func sendingEnded(at: UInt64) {
        lastSent.withLock { $0 = at }
    }

    /// Waits for the reader; returns the answered probes' RTTs in send order, the
    /// largest, and when the first and last echo came; or throws the reader's error.
    func finish() throws -> Answers {
        ended.wait()
        return try outcome.withLock { $0! }.get()
    }

    private func run() {
        var rtts = [UInt64?](repeating: nil, count: count)
        var answered = 0
        var maxRtt: UInt64 = 0
        var firstAt: UInt64?
        var lastAt: UInt64?
        var rx = [UInt8](repeating: 0, count: 2_048)
        // The app takes each echo one receive cost after the one before (CellContext.appLoop).
        var app = AppReceiveLoop(cell.appLoop)
        do {
            while answered < count {
                app?.waitUntilReady()
                let now = MonotonicClock.now()
                var wait = Self.tick
                if let last = lastSent.withLock({ $0 }) {
                    let until = last + max(Self.minStragglerNanos, 4 * maxRtt)
                    guard now < until else { break }
                    wait = min(wait, until - now)
                }
                if cell.remainingNanos == 0 { throw TransportError("udp client: cell deadline passed waiting for the pipelined probes' echoes") }
                try UDPSocketSetup.receiveTimeout(socket, nanos: min(wait, cell.remainingNanos))
                let n: Int?
                do {
                    n = try rx.withUnsafeMutableBytes { try socket.receive($0) }
                } catch let e as SystemError where e.errno == ECONNREFUSED {
                    throw TransportError("udp client: the server at \(cell.server.address) is unreachable (ICMP port unreachable)")
                }
                guard let n else { continue }
                if n == 0 { throw TransportError("udp client: socket shut down (cell cancelled)") }
                let received = MonotonicClock.now()
                let arrived = app?.take(arrivedAt: received) ?? received
                rx.withUnsafeBytes { p in
                    // Late HELLO_ACKs and duplicated echoes are skipped; only the first
                    // echo of a probe counts.
                    guard let h = UDPDatagramHeader(UnsafeRawBufferPointer(rebasing: p[0..<n])), h.session == session, h.type == .echo,
                        h.sequence < UInt64(count), rtts[Int(h.sequence)] == nil
                    else { return }
                    let rtt = arrived > h.timestamp ? arrived - h.timestamp : 0
                    rtts[Int(h.sequence)] = rtt
                    answered += 1
                    maxRtt = max(maxRtt, rtt)
                    if firstAt == nil { firstAt = arrived }
                    lastAt = arrived
                }
            }
            outcome.withLock { $0 = .success((rtts.compactMap { $0 }, maxRtt, firstAt, lastAt)) }
        } catch {
            outcome.withLock { $0 = .failure(error) }
        }
        ended.signal()
    }
}
