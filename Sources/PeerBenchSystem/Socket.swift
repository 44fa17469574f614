import CPeerBenchSystem
import PeerBenchJSON
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A blocking BSD socket that owns its file descriptor.
///
/// Plugins do their I/O on dedicated threads (see `Endpoint.run`), so blocking calls
/// are the simple and fast choice; the runner unblocks them at a deadline by
/// shutting the socket down through `CellCancellation`.
///
/// `close()` and `shutdown()` are safe from any thread at any time, also while
/// another thread is blocked in this socket: every call on the descriptor counts as
/// in flight, `close()` wakes such calls with a shutdown and the descriptor is
/// released when the last of them returns. So a descriptor number is never reused
/// while something may still use it, and calls after `close()` fail with EBADF
/// instead of touching someone else's descriptor.
public final class Socket: Sendable {
    /// The descriptor, for C calls the wrapper does not cover. Valid until `close()`;
    /// use `withDescriptor` where a call may race with it.
    public let fd: Int32
    private struct State {
        var closed = false
        var inFlight = 0
    }
    private let state = Mutex(State())

    public init(family: Int32, type: Int32, protocol proto: Int32 = 0) throws(SystemError) {
        fd = try syscall("socket") { Glibc.socket(family, type | Int32(SOCK_CLOEXEC.rawValue), proto) }
    }

    /// Adopts a descriptor returned by accept().
    public init(adopting fd: Int32) { self.fd = fd }

    deinit { close() }

    /// Closes the socket. Calls blocked in it on other threads return at once (it is
    /// shut down) and the descriptor is released when the last of them has returned.
    /// Idempotent.
    public func close() {
        state.withLock { s in
            guard !s.closed else { return }
            s.closed = true
            // Inside the lock: no in-flight call can release the descriptor meanwhile.
            if s.inFlight == 0 {
                releaseDescriptor()
            } else {
                _ = try? syscall("shutdown") { Glibc.shutdown(fd, Int32(SHUT_RDWR)) }
            }
        }
    }

    /// Shuts both directions down: any thread blocked in this socket returns at once.
    /// Does nothing once the socket is closed.
    public func shutdown() {
        state.withLock { s in
            guard !s.closed else { return }
            _ = try? syscall("shutdown") { Glibc.shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    /// Whether `close()` was called.
    public var isClosed: Bool { state.withLock { $0.closed } }

    /// Runs `body` with the descriptor, which stays valid until `body` returns even if
    /// another thread closes the socket meanwhile; throws EBADF after `close()`.
    public func withDescriptor<T, E: Error>(_ function: String, _ body: (Int32) throws(E) -> T) throws -> T {
        try enter(function)
        defer { leave() }
        return try body(fd)
    }

    private func enter(_ function: String) throws(SystemError) {
        let open = state.withLock { s in
            if s.closed { return false }
            s.inFlight += 1
            return true
        }
        guard open else { throw SystemError(function, errno: EBADF) }
    }

    private func leave() {
        state.withLock { s in
            s.inFlight -= 1
            if s.closed && s.inFlight == 0 { releaseDescriptor() }
        }
    }

    /// close(2), never retried: Linux releases the descriptor even when close reports EINTR.
    private func releaseDescriptor() {
        _ = try? syscall("close", retryingInterrupts: false) { Glibc.close(fd) }
    }

    /// One system call on the descriptor, counted as in flight (see `close`).
    @inline(__always)
    private func io<T>(_ function: @autoclosure () -> String, _ body: (Int32) throws(SystemError) -> T) throws(SystemError) -> T {
        try enter(function())
        defer { leave() }
        return try body(fd)
    }

    public func setOption<T: BitwiseCopyable>(_ level: Int32, _ name: Int32, _ value: T, _ label: String) throws(SystemError) {
        var v = value
        _ = try io("setsockopt(\(label))") { fd throws(SystemError) in
            try syscall("setsockopt(\(label))") { setsockopt(fd, level, name, &v, socklen_t(MemoryLayout<T>.size)) }
        }
    }

    public func getOption<T: BitwiseCopyable>(_ level: Int32, _ name: Int32, as: T.Type, initial: T, _ label: String) throws(SystemError) -> T {
        var v = initial
        var len = socklen_t(MemoryLayout<T>.size)
        _ = try io("getsockopt(\(label))") { fd throws(SystemError) in
            try syscall("getsockopt(\(label))") { getsockopt(fd, level, name, &v, &len) }
        }
        return v
    }

    public func setReuseAddress() throws(SystemError) { try setOption(SOL_SOCKET, SO_REUSEADDR, Int32(1), "SO_REUSEADDR") }

    /// Receive timeout; a blocked recv returns EAGAIN after it (nil from `receive`).
    public func setReceiveTimeout(nanoseconds: UInt64) throws(SystemError) {
        let ns = max(nanoseconds, 1_000)
        let tv = timeval(tv_sec: Int(ns / 1_000_000_000), tv_usec: Int((ns % 1_000_000_000) / 1_000))
        try setOption(SOL_SOCKET, SO_RCVTIMEO, tv, "SO_RCVTIMEO")
    }

    public func setSendTimeout(nanoseconds: UInt64) throws(SystemError) {
        let ns = max(nanoseconds, 1_000)
        let tv = timeval(tv_sec: Int(ns / 1_000_000_000), tv_usec: Int((ns % 1_000_000_000) / 1_000))
        try setOption(SOL_SOCKET, SO_SNDTIMEO, tv, "SO_SNDTIMEO")
    }

    public func setBufferSizes(_ bytes: Int32) throws(SystemError) {
        try setOption(SOL_SOCKET, SO_SNDBUF, bytes, "SO_SNDBUF")
        try setOption(SOL_SOCKET, SO_RCVBUF, bytes, "SO_RCVBUF")
    }

    public func bind(_ address: SocketAddress) throws {
        _ = try address.withSockAddr { sa, len in
            try io("bind(\(address))") { fd throws(SystemError) in try syscall("bind(\(address))") { Glibc.bind(fd, sa, len) } }
        }
    }

    public func listen(backlog: Int32 = 16) throws(SystemError) {
        _ = try io("listen") { fd throws(SystemError) in try syscall("listen") { Glibc.listen(fd, backlog) } }
    }

    public func connect(_ address: SocketAddress) throws {
        _ = try address.withSockAddr { sa, len in
            try io("connect(\(address))") { fd throws(SystemError) in try syscall("connect(\(address))") { Glibc.connect(fd, sa, len) } }
        }
    }

    /// Blocks until a peer connects; nil when the receive timeout expires first.
    public func accept() throws(SystemError) -> Socket? {
        let accepted = try io("accept") { fd throws(SystemError) in
            // Close-on-exec from the start: external plugin processes must not inherit it.
            try syscallAllowingWouldBlock("accept") { pb_accept_cloexec(fd) }
        }
        guard let accepted else { return nil }
        return Socket(adopting: accepted)
    }

    /// The locally bound address (the port the kernel chose for port 0).
    public func localAddress() throws -> SocketAddress {
        var storage = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = try withUnsafeMutablePointer(to: &storage) { p in
            try p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                try io("getsockname") { fd throws(SystemError) in try syscall("getsockname") { getsockname(fd, sa, &len) } }
            }
        }
        guard let a = SocketAddress(storage: storage) else { throw SystemError("getsockname", errno: EAFNOSUPPORT) }
        return a
    }

    /// The connected peer's address (getpeername).
    public func remoteAddress() throws -> SocketAddress {
        var storage = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = try withUnsafeMutablePointer(to: &storage) { p in
            try p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                try io("getpeername") { fd throws(SystemError) in try syscall("getpeername") { getpeername(fd, sa, &len) } }
            }
        }
        guard let a = SocketAddress(storage: storage) else { throw SystemError("getpeername", errno: EAFNOSUPPORT) }
        return a
    }

    /// Lets only packets from `host` (a numeric address) reach this socket: a kernel
    /// filter drops every other one before the socket sees it (no SYN-ACK to another
    /// host's SYN, no datagram from another host to answer). For a server that a real
    /// network can reach; attach it before `bind`, so nothing slips in between.
    public func acceptOnlyFrom(_ host: String) throws {
        let family = SocketAddress(host: host, port: 0).family
        var bytes = [UInt8](repeating: 0, count: 16)
        guard inet_pton(family, host, &bytes) == 1 else { throw InputError("not a numeric address: \(host)") }
        _ = try io("setsockopt(SO_ATTACH_FILTER)") { fd throws(SystemError) in
            try syscall("setsockopt(SO_ATTACH_FILTER)") { pb_attach_peer_filter(fd, family, bytes) }
        }
    }

    /// Sends every byte (stream sockets); throws on error, returns false if the peer went away.
    @discardableResult
    public func sendAll(_ buffer: UnsafeRawBufferPointer) throws(SystemError) -> Bool {
        try io("send") { fd throws(SystemError) in
            var off = 0
            while off < buffer.count {
                let n = try syscall("send") { Glibc.send(fd, buffer.baseAddress! + off, buffer.count - off, Int32(MSG_NOSIGNAL)) }
                if n == 0 { return false }
                off += n
            }
            return true
        }
    }

    /// Reads exactly `buffer.count` bytes. Returns false on orderly end of stream before that.
    /// A receive timeout surfaces as `SystemError` with EAGAIN.
    public func receiveExactly(_ buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Bool {
        try io("recv") { fd throws(SystemError) in
            var off = 0
            while off < buffer.count {
                let n = try syscall("recv") { Glibc.recv(fd, buffer.baseAddress! + off, buffer.count - off, 0) }
                if n == 0 { return false }
                off += n
            }
            return true
        }
    }

    /// One recv(): nil on timeout, 0 on end of stream.
    public func receive(_ buffer: UnsafeMutableRawBufferPointer, flags: Int32 = 0) throws(SystemError) -> Int? {
        try io("recv") { fd throws(SystemError) in
            try syscallAllowingWouldBlock("recv") { Glibc.recv(fd, buffer.baseAddress, buffer.count, flags) }
        }
    }

    /// One datagram to `address`; nil if the socket buffer is full (non-blocking sockets).
    public func send(_ buffer: UnsafeRawBufferPointer, to address: SocketAddress) throws -> Int? {
        try address.withSockAddr { sa, len in
            try io("sendto(\(address))") { fd throws(SystemError) in
                try syscallAllowingWouldBlock("sendto(\(address))") {
                    Glibc.sendto(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL), sa, len)
                }
            }
        }
    }

    /// One datagram on a connected socket; nil if it would block.
    public func send(_ buffer: UnsafeRawBufferPointer) throws(SystemError) -> Int? {
        try io("send") { fd throws(SystemError) in
            try syscallAllowingWouldBlock("send") { Glibc.send(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL)) }
        }
    }

    /// One datagram and its sender; nil on timeout.
    public func receiveFrom(_ buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> (Int, SocketAddress?)? {
        var storage = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let n = try withUnsafeMutablePointer(to: &storage) { p throws(SystemError) in
            try p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa throws(SystemError) in
                try io("recvfrom") { fd throws(SystemError) in
                    try syscallAllowingWouldBlock("recvfrom") { Glibc.recvfrom(fd, buffer.baseAddress, buffer.count, 0, sa, &len) }
                }
            }
        }
        return n.map { ($0, SocketAddress(storage: storage)) }
    }

    /// Waits until the socket is readable or `timeoutNanos` passes; true when readable.
    public func waitReadable(timeoutNanos: UInt64) throws(SystemError) -> Bool {
        let ms = Int32(min(timeoutNanos / 1_000_000, UInt64(Int32.max)))
        return try io("poll") { fd throws(SystemError) in
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            return try syscall("poll") { Glibc.poll(&p, 1, ms) } > 0
        }
    }
}
