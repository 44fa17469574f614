#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A blocking BSD socket that owns its file descriptor and closes it in `deinit`.
///
/// Plugins do their I/O on dedicated threads (see `Endpoint.run`), so blocking calls
/// are the simple and fast choice; the runner unblocks them at a deadline by
/// shutting the socket down through `CellCancellation`.
public final class Socket: @unchecked Sendable {
    public let fd: Int32
    private var closed = false
    // close() and shutdown() may race (a deadline handler on another thread): after
    // close the descriptor number can be reused, so shutdown must not touch it.
    private let lock = NSLock()

    public init(family: Int32, type: Int32, protocol proto: Int32 = 0) throws(SystemError) {
        fd = try syscall("socket") { Glibc.socket(family, type | Int32(SOCK_CLOEXEC.rawValue), proto) }
    }

    /// Adopts a descriptor returned by accept().
    public init(adopting fd: Int32) { self.fd = fd }

    deinit { close() }

    public func close() {
        lock.withLock {
            guard !closed else { return }
            closed = true
            Glibc.close(fd)
        }
    }

    /// Shuts both directions down: any thread blocked in this socket returns at once.
    /// Does nothing once the socket is closed.
    public func shutdown() {
        lock.withLock {
            guard !closed else { return }
            _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
        }
    }

    public func setOption<T: BitwiseCopyable>(_ level: Int32, _ name: Int32, _ value: T, _ label: String) throws(SystemError) {
        var v = value
        try syscall("setsockopt(\(label))") { setsockopt(fd, level, name, &v, socklen_t(MemoryLayout<T>.size)) }
    }

    public func getOption<T: BitwiseCopyable>(_ level: Int32, _ name: Int32, as: T.Type, initial: T, _ label: String) throws(SystemError) -> T {
        var v = initial
        var len = socklen_t(MemoryLayout<T>.size)
        try syscall("getsockopt(\(label))") { getsockopt(fd, level, name, &v, &len) }
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
        _ = try address.withSockAddr { sa, len in try syscall("bind(\(address))") { Glibc.bind(fd, sa, len) } }
    }

    public func listen(backlog: Int32 = 16) throws(SystemError) { try syscall("listen") { Glibc.listen(fd, backlog) } }

    public func connect(_ address: SocketAddress) throws {
        _ = try address.withSockAddr { sa, len in try syscall("connect(\(address))") { Glibc.connect(fd, sa, len) } }
    }

    /// Blocks until a peer connects; nil when the receive timeout expires first.
    public func accept() throws(SystemError) -> Socket? {
        guard let c = try syscallAllowingWouldBlock("accept", { Glibc.accept(fd, nil, nil) }) else { return nil }
        _ = fcntl(c, F_SETFD, FD_CLOEXEC)  // external plugin processes must not inherit it
        return Socket(adopting: c)
    }

    /// The locally bound address (the port the kernel chose for port 0).
    public func localAddress() throws -> SocketAddress {
        var storage = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = try withUnsafeMutablePointer(to: &storage) { p in
            try p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                try syscall("getsockname") { getsockname(fd, sa, &len) }
            }
        }
        guard let a = SocketAddress(storage: storage) else { throw SystemError("getsockname", errno: EAFNOSUPPORT) }
        return a
    }

    /// Sends every byte (stream sockets); throws on error, returns false if the peer went away.
    @discardableResult
    public func sendAll(_ buffer: UnsafeRawBufferPointer) throws(SystemError) -> Bool {
        var off = 0
        while off < buffer.count {
            let n = try syscall("send") { Glibc.send(fd, buffer.baseAddress! + off, buffer.count - off, Int32(MSG_NOSIGNAL)) }
            if n == 0 { return false }
            off += n
        }
        return true
    }

    /// Reads exactly `buffer.count` bytes. Returns false on orderly end of stream before that.
    /// A receive timeout surfaces as `SystemError` with EAGAIN.
    public func receiveExactly(_ buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Bool {
        var off = 0
        while off < buffer.count {
            let n = try syscall("recv") { Glibc.recv(fd, buffer.baseAddress! + off, buffer.count - off, 0) }
            if n == 0 { return false }
            off += n
        }
        return true
    }

    /// One recv(): nil on timeout, 0 on end of stream.
    public func receive(_ buffer: UnsafeMutableRawBufferPointer, flags: Int32 = 0) throws(SystemError) -> Int? {
        try syscallAllowingWouldBlock("recv") { Glibc.recv(fd, buffer.baseAddress, buffer.count, flags) }
    }

    /// One datagram to `address`; nil if the socket buffer is full (non-blocking sockets).
    public func send(_ buffer: UnsafeRawBufferPointer, to address: SocketAddress) throws -> Int? {
        try address.withSockAddr { sa, len in
            try syscallAllowingWouldBlock("sendto(\(address))") { Glibc.sendto(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL), sa, len) }
        }
    }

    /// One datagram on a connected socket; nil if it would block.
    public func send(_ buffer: UnsafeRawBufferPointer) throws(SystemError) -> Int? {
        try syscallAllowingWouldBlock("send") { Glibc.send(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL)) }
    }

    /// One datagram and its sender; nil on timeout.
    public func receiveFrom(_ buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> (Int, SocketAddress?)? {
        var storage = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let n = try withUnsafeMutablePointer(to: &storage) { p throws(SystemError) in
            try p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa throws(SystemError) in
                try syscallAllowingWouldBlock("recvfrom") { Glibc.recvfrom(fd, buffer.baseAddress, buffer.count, 0, sa, &len) }
            }
        }
        return n.map { ($0, SocketAddress(storage: storage)) }
    }

    /// Waits until the socket is readable or `timeoutNanos` passes; true when readable.
    public func waitReadable(timeoutNanos: UInt64) throws(SystemError) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ms = Int32(min(timeoutNanos / 1_000_000, UInt64(Int32.max)))
        return try syscall("poll") { Glibc.poll(&p, 1, ms) } > 0
    }
}
