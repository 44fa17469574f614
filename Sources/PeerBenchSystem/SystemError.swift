#if canImport(Glibc)
    import Glibc
#endif

/// A failed system call: the function's name and errno, printable for users.
public struct SystemError: Error, Sendable, CustomStringConvertible, Equatable {
    public var function: String
    public var errno: Int32
    public init(_ function: String, errno: Int32) {
        self.function = function
        self.errno = errno
    }
    public var description: String { "\(function) failed: \(String(cString: strerror(errno))) (errno \(errno))" }
}

/// Writes all of `bytes` to `fd` (a file or pipe), each partial write continued where it
/// stopped; a failure throws the `SystemError` of `function` (`write`, or `write(WHAT)`
/// naming the file).
public func writeAll(_ fd: Int32, _ bytes: [UInt8], function: @autoclosure () -> String = "write") throws(SystemError) {
    try bytes.withUnsafeBytes { buf in
        Result { () throws(SystemError) in
            var off = 0
            while off < buf.count {
                off += try syscall(function()) { Glibc.write(fd, buf.baseAddress! + off, buf.count - off) }
            }
        }
    }.get()
}

/// Runs a system call, retrying on EINTR and throwing `SystemError` on -1.
/// Every system call in PeerBench goes through here (or `syscallAllowingWouldBlock`).
/// `retryingInterrupts: false` is for close(2), which must not be repeated.
@discardableResult
@inline(__always)
public func syscall<T: FixedWidthInteger>(
    _ function: @autoclosure () -> String, retryingInterrupts: Bool = true,
    _ body: () -> T
) throws(SystemError) -> T {
    while true {
        let r = body()
        if r != -1 { return r }
        let e = Glibc.errno
        if e == EINTR && retryingInterrupts { continue }
        throw SystemError(function(), errno: e)
    }
}

/// Like `syscall`, but EAGAIN/EWOULDBLOCK (and receive timeouts) come back as nil.
@inline(__always)
public func syscallAllowingWouldBlock<T: FixedWidthInteger>(_ function: @autoclosure () -> String, _ body: () -> T) throws(SystemError) -> T? {
    while true {
        let r = body()
        if r != -1 { return r }
        let e = Glibc.errno
        if e == EINTR { continue }
        if e == EAGAIN || e == EWOULDBLOCK { return nil }
        throw SystemError(function(), errno: e)
    }
}
