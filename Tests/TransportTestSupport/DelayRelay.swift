import Foundation
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

/// One direction of a test path: a one-way delay and, optionally, a bottleneck rate.
/// Bytes that arrive while the bottleneck is busy wait for it (a FIFO queue), so a
/// burst builds queueing delay the way a slow link does.
public struct PathShape: Sendable {
    public var delayMs: Double
    public var rateMbps: Double?
    public init(delayMs: Double, rateMbps: Double? = nil) {
        self.delayMs = delayMs
        self.rateMbps = rateMbps
    }
}

/// Releases chunks of bytes at the times a `PathShape` gives them, in order, on a
/// thread of its own (`deliver` runs there).
final class DelayLine: @unchecked Sendable {
    private let shape: PathShape
    private let deliver: ([UInt8]) -> Void
    private let lock = NSLock()
    private var queue: [(at: UInt64, bytes: [UInt8])] = []
    private var head = 0
    private var busyUntil: UInt64 = 0
    private var stopped = false
    private let wake = DispatchSemaphore(value: 0)

    init(_ shape: PathShape, name: String, deliver: @escaping ([UInt8]) -> Void) {
        self.shape = shape
        self.deliver = deliver
        let t = Thread { [self] in run() }
        t.name = name
        t.start()
    }

    /// Takes `bytes` that arrived now: they leave the bottleneck after what is queued
    /// ahead of them, then travel the delay.
    func push(_ bytes: [UInt8]) {
        let now = MonotonicClock.now()
        lock.withLock {
            let start = max(now, busyUntil)
            let serialisation = shape.rateMbps.map { UInt64(Double(bytes.count) * 8 / ($0 * 1e6) * 1e9) } ?? 0
            busyUntil = start + serialisation
            queue.append((busyUntil + UInt64(shape.delayMs * 1e6), bytes))
        }
        wake.signal()
    }

    func stop() {
        lock.withLock { stopped = true }
        wake.signal()
    }

    private func run() {
        while true {
            let next: (at: UInt64, bytes: [UInt8])? = lock.withLock {
                if stopped { return nil }
                return head < queue.count ? queue[head] : (UInt64.max, [])
            }
            guard let next else { return }
            let now = MonotonicClock.now()
            if next.at == .max {
                _ = wake.wait(timeout: .now() + .milliseconds(50))
                continue
            }
            if next.at > now {
                _ = wake.wait(timeout: .now() + .nanoseconds(Int(next.at - now)))
                continue
            }
            lock.withLock {
                head += 1
                if head > 1024 {
                    queue.removeFirst(head)
                    head = 0
                }
            }
            deliver(next.bytes)
        }
    }
}

/// A loopback TCP relay for one connection, with a `PathShape` each way: the client
/// connects to `address`, the relay connects to the server and forwards bytes both
/// ways through delay lines. The relay terminates TCP, so each side's TCP sees a
/// loopback peer; what the application sees is the shaped path's delay and rate.
public final class DelayingTCPRelay: @unchecked Sendable {
    public let address: SocketAddress
    private let listener: Socket
    private let lock = NSLock()
    private var sockets: [Socket] = []
    private var lines: [DelayLine] = []
    private var upCount = 0

    /// Bytes the client has sent through the relay so far.
    public var upBytes: Int { lock.withLock { upCount } }

    public init(to server: SocketAddress, up: PathShape, down: PathShape) throws {
        listener = try Socket(family: AF_INET, type: Int32(SOCK_STREAM.rawValue))
        try listener.setReuseAddress()
        try listener.bind(SocketAddress(host: "127.0.0.1", port: 0))
        try listener.listen()
        address = try listener.localAddress()
        let t = Thread { [self] in accept(server: server, up: up, down: down) }
        t.name = "tcp relay accept"
        t.start()
    }

    private func accept(server: SocketAddress, up: PathShape, down: PathShape) {
        guard let client = try? listener.accept() else { return }
        guard let upstream = try? Socket(family: AF_INET, type: Int32(SOCK_STREAM.rawValue)), (try? upstream.connect(server)) != nil else {
            client.close()
            return
        }
        let toServer = DelayLine(up, name: "relay up") { bytes in Self.forward(bytes, to: upstream) }
        let toClient = DelayLine(down, name: "relay down") { bytes in Self.forward(bytes, to: client) }
        lock.withLock {
            sockets += [client, upstream]
            lines += [toServer, toClient]
        }
        pump(from: client, into: toServer) { [self] n in lock.withLock { upCount += n } }
        pump(from: upstream, into: toClient)
    }

    /// Writes a chunk; the empty chunk that marks the end of one side's stream becomes
    /// a FIN on the other (after the data ahead of it, which the line delivered first).
    private static func forward(_ bytes: [UInt8], to socket: Socket) {
        if bytes.isEmpty {
            _ = try? socket.withDescriptor("shutdown") { fd in Glibc.shutdown(fd, Int32(SHUT_WR)) }
        } else {
            _ = bytes.withUnsafeBytes { try? socket.sendAll($0) }
        }
    }

    /// Reads `from` until it ends, pushing what arrives into `line`, then the end mark;
    /// `counted` hears the size of every read.
    private func pump(from: Socket, into line: DelayLine, counted: @escaping @Sendable (Int) -> Void = { _ in }) {
        let t = Thread {
            // Small reads: the bottleneck then releases the stream in small pieces, as a
            // link releases segments, not in 64 KiB lumps.
            var buffer = [UInt8](repeating: 0, count: 4_096)
            while let n = try? buffer.withUnsafeMutableBytes({ try from.receive($0) }), n > 0 {
                counted(n)
                line.push(Array(buffer[0..<n]))
            }
            line.push([])
        }
        t.name = "relay read"
        t.start()
    }

    public func stop() {
        listener.shutdown()
        listener.close()
        lock.withLock {
            lines.forEach { $0.stop() }
            sockets.forEach {
                $0.shutdown()
                $0.close()
            }
        }
    }
}

/// A loopback UDP relay with a `PathShape` each way: datagrams from the client to
/// `address` go to the server and back, each released at its shaped time.
public final class DelayingUDPRelay: @unchecked Sendable {
    public let address: SocketAddress
    private let front: Socket
    private let back: Socket
    private let lock = NSLock()
    private var client: SocketAddress?
    private var stopped = false
    private var lines: [DelayLine] = []

    public init(to server: SocketAddress, up: PathShape, down: PathShape) throws {
        front = try Socket(family: AF_INET, type: Int32(SOCK_DGRAM.rawValue))
        try front.bind(SocketAddress(host: "127.0.0.1", port: 0))
        address = try front.localAddress()
        back = try Socket(family: AF_INET, type: Int32(SOCK_DGRAM.rawValue))
        try back.connect(server)
        for s in [front, back] {
            try s.setBufferSizes(8 << 20)
            try s.setReceiveTimeout(nanoseconds: 50_000_000)
        }
        let (front, back) = (self.front, self.back)
        let toServer = DelayLine(up, name: "udp relay up") { d in _ = d.withUnsafeBytes { try? back.send($0) } }
        let toClient = DelayLine(down, name: "udp relay down") { [self] d in
            guard let to = lock.withLock({ client }) else { return }
            _ = d.withUnsafeBytes { try? front.send($0, to: to) }
        }
        lines = [toServer, toClient]
        Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while !lock.withLock({ stopped }) {
                guard let (n, from) = try? buffer.withUnsafeMutableBytes({ try front.receiveFrom($0) }) else { continue }
                if let from { lock.withLock { client = from } }
                toServer.push(Array(buffer[0..<n]))
            }
        }.start()
        Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while !lock.withLock({ stopped }) {
                guard let n = try? buffer.withUnsafeMutableBytes({ try back.receive($0) }) else { continue }
                toClient.push(Array(buffer[0..<n]))
            }
        }.start()
    }

    public func stop() {
        lock.withLock { stopped = true }
        lines.forEach { $0.stop() }
        front.close()
        back.close()
    }
}
