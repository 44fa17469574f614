#if canImport(Glibc)
import Glibc
#endif
import CPeerBenchSystem

/// A named network namespace (as created by `ip netns add NAME`, pinned under /run/netns).
/// The core only needs to enter one on a thread; creating and removing them is the
/// link emulator's business.
public struct NetworkNamespace: Sendable, Hashable, Codable, CustomStringConvertible {
    public var name: String
    public init(name: String) { self.name = name }
    public var path: String { "/run/netns/\(name)" }
    public var description: String { name }

    /// Moves the calling thread into this namespace. Only call on a thread made for it
    /// (`BlockingThread`), which ends afterwards: the namespace is per thread.
    public func enterOnCurrentThread() throws {
        let fd = try syscall("open(\(path))") { open(path, O_RDONLY | O_CLOEXEC) }
        defer { close(fd) }
        try syscall("setns(\(name))") { pb_setns_net(fd) }
    }
}
