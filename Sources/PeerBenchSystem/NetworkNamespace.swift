import CPeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

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
    func enterOnCurrentThread() throws {
        let fd = try syscall("open(\(path))") { open(path, O_RDONLY | O_CLOEXEC) }
        defer { close(fd) }
        try syscall("setns(\(name))") { pb_setns_net(fd) }
    }

    /// Runs `body` on the calling thread inside `namespace` (nil: where it is), then
    /// moves the thread back to the namespace it was in before returning.
    ///
    /// Why back: a thread inherits its creator's namespace, and a thread that wakes an
    /// awaiting task (a continuation, a semaphore) may be the one that makes the
    /// runtime grow its worker pool. A worker born in a cell's namespace would run every
    /// later task there: `::1` then no longer exists for them (the emulated namespaces
    /// have no IPv6), nor does anything else of the host's network.
    public static func run<T>(in namespace: NetworkNamespace?, _ body: () throws -> T) throws -> T {
        guard let namespace else { return try body() }
        let home = try syscall("open(/proc/thread-self/ns/net)") { open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC) }
        defer {
            // Cannot fail for a namespace this thread was in a moment ago; if it did,
            // the thread would stay in `namespace`, which is what the old code always did.
            _ = pb_setns_net(home)
            close(home)
        }
        try namespace.enterOnCurrentThread()
        return try body()
    }
}
