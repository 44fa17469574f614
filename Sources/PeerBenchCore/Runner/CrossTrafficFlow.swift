import Dispatch
import Foundation
import PeerBenchPlugin
import PeerBenchSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The competing flow of a cell (`CrossTrafficSpec`), running: real UDP sockets in the
/// endpoints' namespaces, marked with the flow's service class like a plugin's, one
/// sender and one receiver per direction on threads of their own. The runner starts
/// it before the plugin's server and stops it after the plugin's client has finished.
public final class CrossTrafficFlow: Sendable {
    public let spec: CrossTrafficSpec
    private let stopping = Atomic<Bool>(false)
    private let receivedBytes = Atomic<Int>(0)
    private let sockets = Mutex<[Socket]>([])
    private let threads = DispatchGroup()
    private let started: UInt64

    /// How long the flow runs before the cell starts, so a saturating flow's queue has
    /// built up when the cell's first packet arrives.
    static let warmUpNanos: UInt64 = 100_000_000

    /// Starts the flow between `client` and `server` (UDP payloads sized to `mtu`).
    /// Throws when a socket cannot be opened; nothing is left running then.
    public init(_ spec: CrossTrafficSpec, client: Endpoint, server: Endpoint, mtu: Int) async throws {
        self.spec = spec
        started = MonotonicClock.now()
        let pairs: [(from: Endpoint, to: Endpoint)] =
            switch spec.direction {
            case .up: [(client, server)]
            case .down: [(server, client)]
            case .both: [(client, server), (server, client)]
            }
        do {
            for (from, to) in pairs {
                let receiver = try await to.run("pb-cross-bind") { [spec] () throws -> Socket in
                    let s = try Socket(family: SocketAddress(host: to.address, port: 0).family, type: Int32(SOCK_DGRAM.rawValue))
                    try s.setServiceClass(spec.serviceClass)
                    try s.bind(SocketAddress(host: to.address, port: 0))
                    try s.setReceiveTimeout(nanoseconds: 50_000_000)
                    return s
                }
                keep(receiver)
                let target = try receiver.localAddress()
                let sender = try await from.run("pb-cross-connect") { [spec] () throws -> Socket in
                    let s = try Socket(family: target.family, type: Int32(SOCK_DGRAM.rawValue))
                    try s.setServiceClass(spec.serviceClass)
                    try s.connect(target)
                    try s.setSendTimeout(nanoseconds: 50_000_000)
                    return s
                }
                keep(sender)
                let payload = max(64, mtu - (target.family == AF_INET6 ? 48 : 28))
                spawn("pb-cross-rx", in: to.namespace) { [self] in receive(receiver) }
                spawn("pb-cross-tx", in: from.namespace) { [self] in send(sender, payload: payload) }
            }
        } catch {
            _ = finish()
            throw error
        }
        try? await Task.sleep(nanoseconds: Self.warmUpNanos)
    }

    /// Stops the flow, waits for its threads and returns what it carried: the class,
    /// the offered rate (nil when saturating) and the goodput over its whole run
    /// (payload bytes received in both directions together, Mbit/s).
    public func finish() -> Record.CrossTraffic {
        stopping.store(true, ordering: .relaxed)
        let elapsed = Double(MonotonicClock.elapsed(since: started)) / 1e9
        let all = sockets.withLock { s in
            defer { s = [] }
            return s
        }
        // The threads wake within their 50 ms socket timeouts; shutting down is faster.
        all.forEach { $0.shutdown() }
        _ = threads.wait(timeout: .now() + 2)
        all.forEach { $0.close() }
        let bytes = receivedBytes.load(ordering: .relaxed)
        return Record.CrossTraffic(
            serviceClass: spec.serviceClass.rawValue, offeredMbps: spec.rateMbps,
            goodputMbps: elapsed > 0 ? (Double(bytes) * 8 / elapsed / 1e6 * 1_000).rounded() / 1_000 : nil)
    }

    private func keep(_ s: Socket) { sockets.withLock { $0.append(s) } }

    private func spawn(_ name: String, in namespace: NetworkNamespace?, _ body: @escaping @Sendable () -> Void) {
        threads.enter()
        let group = threads
        let thread = Thread {
            defer { group.leave() }
            _ = try? NetworkNamespace.run(in: namespace, body)
        }
        thread.name = name
        thread.start()
    }

    private func receive(_ s: Socket) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 16)
        defer { buffer.deallocate() }
        while !stopping.load(ordering: .relaxed) {
            // nil: the 50 ms timeout, to look at `stopping` again; errors: shut down.
            if let n = try? s.receive(buffer), n > 0 { receivedBytes.add(n, ordering: .relaxed) }
        }
    }

    /// Sends `payload`-byte datagrams: paced at the offered rate (never catching up
    /// more than 10 ms of lag in a burst), or back to back when saturating, where the
    /// sender-side shaper and the socket buffer hold it to the link's rate.
    private func send(_ s: Socket, payload: Int) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: payload, alignment: 16)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0x5a)
        let interval = spec.rateMbps.map { UInt64(Double(payload * 8) / ($0 * 1e6) * 1e9) }
        var next = MonotonicClock.now()
        while !stopping.load(ordering: .relaxed) {
            if let interval {
                let now = MonotonicClock.now()
                if next > now {
                    var ts = timespec(tv_sec: Int((next - now) / 1_000_000_000), tv_nsec: Int((next - now) % 1_000_000_000))
                    nanosleep(&ts, nil)
                } else if now - next > 10_000_000 {
                    next = now
                }
                next += interval
            }
            // Errors (ICMP refusals, a timeout in a full buffer) do not stop the flow.
            _ = try? s.send(UnsafeRawBufferPointer(buffer))
        }
    }
}
