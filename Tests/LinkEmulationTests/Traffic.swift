import Foundation
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem

@testable import LinkEmulation

#if canImport(Glibc)
    import Glibc
#endif

/// Test traffic between the two namespaces of an emulated testbed. Every socket is
/// bound to or aimed at the testbed's own addresses (10.201.0.1 / .2), which exist
/// only inside the namespaces the test created.
enum Traffic {
    /// A UDP echo server in `server` that answers until the end marker comes or
    /// `idleNanos` (3 s) pass without a datagram. Returns the number of datagrams it echoed.
    static func udpEcho(
        _ server: Endpoint, port: UInt16, ready: Flag, serviceClass: ServiceClass = .bestEffort,
        idleNanos: UInt64 = 3_000_000_000
    ) async throws -> Int {
        try await server.run("udp-echo") {
            let s = try Socket(family: AF_INET, type: Int32(SOCK_DGRAM.rawValue))
            try s.setServiceClass(serviceClass)
            try s.bind(SocketAddress(host: server.address, port: port))
            try s.setReceiveTimeout(nanoseconds: idleNanos)
            try Traffic.forceReceiveBuffer(s, bytes: 4 << 20)
            ready.set()
            let buf = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 8)
            defer { buf.deallocate() }
            var echoed = 0
            while let (n, from) = try s.receiveFrom(buf), let from {
                if n == 1 && buf[0] == 0xFF { break }  // end marker
                _ = try s.send(UnsafeRawBufferPointer(rebasing: buf[0..<n]), to: from)
                echoed += 1
            }
            return echoed
        }
    }

    /// Sends `count` UDP ping-pongs from `client` to `server` one at a time, `gapNanos`
    /// apart; returns (send time, RTT) in nanoseconds for each answered probe.
    static func udpPings(
        from client: Endpoint, to server: Endpoint, port: UInt16, count: Int, size: Int = 64,
        gapNanos: UInt64 = 0, timeoutNanos: UInt64 = 1_000_000_000,
        serviceClass: ServiceClass = .bestEffort, endMarkers: Int = 1
    ) async throws -> [(UInt64, UInt64)] {
        try await client.run("udp-ping") {
            let s = try Socket(family: AF_INET, type: Int32(SOCK_DGRAM.rawValue))
            try s.setServiceClass(serviceClass)
            try s.connect(SocketAddress(host: server.address, port: port))
            try s.setReceiveTimeout(nanoseconds: timeoutNanos)
            let out = UnsafeMutableRawBufferPointer.allocate(byteCount: max(size, 8), alignment: 8)
            let inb = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 8)
            defer {
                out.deallocate()
                inb.deallocate()
            }
            out.initializeMemory(as: UInt8.self, repeating: 0x55)
            var results: [(UInt64, UInt64)] = []
            for i in 0..<count {
                out.storeBytes(of: UInt64(i), as: UInt64.self)
                let sent = MonotonicClock.now()
                _ = try s.send(UnsafeRawBufferPointer(out))
                while let n = try s.receive(inb) {
                    if n >= 8 && inb.load(as: UInt64.self) == UInt64(i) {
                        results.append((sent, MonotonicClock.now() - sent))
                        break
                    }
                }
                if gapNanos > 0 { sleepUntil(sent + gapNanos) }
            }
            // The end marker, `endMarkers` times 5 ms apart: through a full queue one
            // may be lost, which keeps the echo waiting its whole idle time (15 s in
            // EDCATests, where an unshaped best-effort queue drops about one arrival in
            // six). Those after the first meet a closed port, which nothing here reads.
            // One by default: tests that count the link's packets count one marker.
            out[0] = 0xFF
            _ = try s.send(UnsafeRawBufferPointer(rebasing: out[0..<1]))
            for _ in 1..<max(endMarkers, 1) {
                usleep(5_000)
                _ = try? s.send(UnsafeRawBufferPointer(rebasing: out[0..<1]))
            }
            return results
        }
    }

    /// A receive buffer of `bytes` even above net.core.rmem_max (SO_RCVBUFFORCE; the
    /// tests run as root), so a receiving thread delayed by other suites' load does not
    /// make the kernel drop datagrams the emulator delivered.
    static func forceReceiveBuffer(_ s: Socket, bytes: Int32) throws {
        try s.setOption(SOL_SOCKET, SO_RCVBUFFORCE, bytes, "SO_RCVBUFFORCE")
    }

    /// Waits on CLOCK_MONOTONIC until an absolute time (clock_nanosleep, no loop).
    /// `<asm/sockios.h>`: the receive time (CLOCK_REALTIME) of the last datagram read.
    static let siocgstampns: Int32 = 0x8907

    /// CLOCK_REALTIME in nanoseconds: the clock of kernel receive timestamps.
    static func realtimeNanos() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    static func sleepUntil(_ t: UInt64) {
        var ts = timespec(tv_sec: Int(t / 1_000_000_000), tv_nsec: Int(t % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
    }

    /// Sends `count` datagrams of `size` bytes from client to server at most `ratePps`
    /// per second and returns which sequence numbers arrived.
    /// `interval` 0 sends back to back (unpaced); `sendBufferBytes` > 0 forces that
    /// SO_SNDBUF (the kernel doubles it).
    static func udpBlast(
        from client: Endpoint, to server: Endpoint, port: UInt16, count: Int, size: Int,
        interval: UInt64, sendBufferBytes: Int32 = 0, sinkTimeoutNanos: UInt64 = 1_000_000_000
    ) async throws -> [Bool] {
        let ready = Flag()
        async let received: [Bool] = server.run("udp-sink") {
            let s = try Socket(family: AF_INET, type: Int32(SOCK_DGRAM.rawValue))
            try s.bind(SocketAddress(host: server.address, port: port))
            try Traffic.forceReceiveBuffer(s, bytes: 8 << 20)
            try s.setReceiveTimeout(nanoseconds: sinkTimeoutNanos)
            ready.set()
            var seen = [Bool](repeating: false, count: count)
            let buf = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 8)
            defer { buf.deallocate() }
            while let n = try s.receive(buf) {
                guard n >= 8 else { continue }
                let seq = Int(buf.load(as: UInt64.self))
                if seq == Int(UInt32.max) { break }
                if seq < count { seen[seq] = true }
            }
            return seen
        }
        try ready.wait()
        _ = try await client.run("udp-blast") {
            let s = try Socket(family: AF_INET, type: Int32(SOCK_DGRAM.rawValue))
            try s.connect(SocketAddress(host: server.address, port: port))
            let out = UnsafeMutableRawBufferPointer.allocate(byteCount: max(size, 8), alignment: 8)
            defer { out.deallocate() }
            out.initializeMemory(as: UInt8.self, repeating: 0x33)
            if sendBufferBytes > 0 { try s.setOption(SOL_SOCKET, SO_SNDBUFFORCE, sendBufferBytes, "SO_SNDBUFFORCE") }
            var next = MonotonicClock.now()
            for i in 0..<count {
                out.storeBytes(of: UInt64(i), as: UInt64.self)
                _ = try s.send(UnsafeRawBufferPointer(out))
                // interval 0: back to back, as fast as the socket accepts them.
                if interval > 0 {
                    next += interval
                    sleepUntil(next)
                }
            }
            // Let the last datagrams cross before the end marker.
            sleepUntil(MonotonicClock.now() + 200_000_000)
            out.storeBytes(of: UInt64(UInt32.max), as: UInt64.self)
            // The sink closes after the first marker; the ICMP port unreachable it causes
            // can fail a later send with ECONNREFUSED, which is not an error here.
            for _ in 0..<3 { _ = try? s.send(UnsafeRawBufferPointer(rebasing: out[0..<8])) }
            return 0
        }
        return try await received
    }

    /// Sends `count` small datagrams `gapNanos` apart, each stamped with its send time;
    /// returns (sequence number, one-way delay) in arrival order. Both namespaces share
    /// the host's clocks, so the kernel's receive timestamp (CLOCK_REALTIME) minus the
    /// send time on the same clock is the one-way delay.
    static func oneWayDelays(
        from client: Endpoint, to server: Endpoint, port: UInt16, count n: Int,
        gapNanos: UInt64
    ) async throws -> [(Int, UInt64)] {
        let ready = Flag()
        async let arrivals: [(Int, UInt64)] = server.run("udp-delays") {
            let s = try Socket(family: AF_INET, type: Int32(SOCK_DGRAM.rawValue))
            try s.bind(SocketAddress(host: server.address, port: port))
            try Traffic.forceReceiveBuffer(s, bytes: 4 << 20)
            try s.setReceiveTimeout(nanoseconds: 1_000_000_000)
            ready.set()
            var got: [(Int, UInt64)] = []
            let buf = UnsafeMutableRawBufferPointer.allocate(byteCount: 2_048, alignment: 8)
            defer { buf.deallocate() }
            while got.count < n, let len = try s.receive(buf), len >= 16 {
                // The kernel's receive time of this datagram (SIOCGSTAMPNS: the last one
                // read), not this thread's wake-up after it: the delay is the link's.
                var arrived = timespec()
                guard ioctl(s.fd, UInt(Traffic.siocgstampns), &arrived) == 0 else {
                    throw SystemError("ioctl SIOCGSTAMPNS", errno: errno)
                }
                let arrival = UInt64(arrived.tv_sec) * 1_000_000_000 + UInt64(arrived.tv_nsec)
                got.append((Int(buf.load(as: UInt64.self)), arrival &- buf.load(fromByteOffset: 8, as: UInt64.self)))
            }
            return got
        }
        try ready.wait()
        _ = try await client.run("udp-delays-send") {
            let s = try Socket(family: AF_INET, type: Int32(SOCK_DGRAM.rawValue))
            try s.connect(SocketAddress(host: server.address, port: port))
            let out = UnsafeMutableRawBufferPointer.allocate(byteCount: 100, alignment: 8)
            defer { out.deallocate() }
            var next = MonotonicClock.now()
            for i in 0..<n {
                out.storeBytes(of: UInt64(i), as: UInt64.self)
                out.storeBytes(of: Traffic.realtimeNanos(), toByteOffset: 8, as: UInt64.self)
                _ = try s.send(UnsafeRawBufferPointer(out))
                next += gapNanos
                sleepUntil(next)
            }
            return 0
        }
        return try await arrivals
    }

    /// A TCP transfer of `bytes` from client to server; returns goodput in bits per
    /// second measured at the receiver (first byte to last byte).
    static func tcpGoodput(from client: Endpoint, to server: Endpoint, port: UInt16, bytes: Int) async throws -> Double {
        let ready = Flag()
        async let measured: Double = server.run("tcp-sink") {
            let l = try Socket(family: AF_INET, type: Int32(SOCK_STREAM.rawValue))
            try l.setReuseAddress()
            try l.bind(SocketAddress(host: server.address, port: port))
            try l.listen()
            try l.setReceiveTimeout(nanoseconds: 10_000_000_000)
            ready.set()
            guard let c = try l.accept() else { throw LinkSetupError("no TCP connection arrived") }
            try c.setReceiveTimeout(nanoseconds: 10_000_000_000)
            let buf = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 8)
            defer { buf.deallocate() }
            var total = 0
            var first: UInt64 = 0
            var firstBytes = 0
            while total < bytes {
                guard let n = try c.receive(buf), n > 0 else { break }
                if first == 0 {
                    first = MonotonicClock.now()
                    firstBytes = n
                }
                total += n
            }
            let elapsed = MonotonicClock.now() - first
            return Double(total - firstBytes) * 8 / (Double(elapsed) / 1e9)
        }
        try ready.wait()
        _ = try await client.run("tcp-source") {
            let s = try Socket(family: AF_INET, type: Int32(SOCK_STREAM.rawValue))
            try s.connect(SocketAddress(host: server.address, port: port))
            let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 << 10, alignment: 8)
            defer { chunk.deallocate() }
            chunk.initializeMemory(as: UInt8.self, repeating: 0x5A)
            var left = bytes
            while left > 0 {
                let n = min(left, chunk.count)
                guard try s.sendAll(UnsafeRawBufferPointer(rebasing: chunk[0..<n])) else { break }
                left -= n
            }
            return 0
        }
        return try await measured
    }
}

/// A one-shot flag a server thread raises when its socket is bound.
final class Flag: @unchecked Sendable {
    private let cond = NSCondition()
    private var raised = false
    func set() {
        cond.lock()
        raised = true
        cond.broadcast()
        cond.unlock()
    }
    func wait(seconds: Double = 5) throws {
        cond.lock()
        defer { cond.unlock() }
        let deadline = Date().addingTimeInterval(seconds)
        while !raised { if !cond.wait(until: deadline) { throw LinkSetupError("server did not start within \(seconds) s") } }
    }
}

extension Array where Element == UInt64 {
    /// The q-quantile (nearest rank) of unsorted values.
    func quantile(_ q: Double) -> UInt64 {
        let s = sorted()
        return s[Swift.min(s.count - 1, Swift.max(0, Int((Double(s.count) * q).rounded(.up)) - 1))]
    }
}
