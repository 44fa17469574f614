import Foundation
import Testing

@testable import PeerBenchCore
@testable import PeerBenchPlugin
@testable import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A thread that does work inside a namespace goes back where it came from before it
/// wakes anyone: otherwise threads it makes (the runtime's workers among them) are born
/// in that namespace, and later tasks on them lose the host's network (seen as
/// `bind([::1]:0)` failing in suites that ran after the EDCA tests).
@Suite(.serialized, .enabled(if: getuid() == 0, "needs root to create a network namespace"))
struct NamespaceThreadTests {
    static func netnsInode() -> UInt64 {
        var st = stat()
        return stat("/proc/thread-self/ns/net", &st) == 0 ? UInt64(st.st_ino) : 0
    }

    static func ip(_ args: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        p.arguments = args
        try p.run()
        p.waitUntilExit()
    }

    @Test func aThreadReturnsToItsNamespaceAfterWorkInAnother() async throws {
        let ns = NetworkNamespace(name: "pbns-\(getpid())")
        try? Self.ip(["netns", "del", ns.name])
        try Self.ip(["netns", "add", ns.name])
        defer { try? Self.ip(["netns", "del", ns.name]) }

        let (before, inside, after) = try await BlockingThread.run(name: "probe") { () throws -> (UInt64, UInt64, UInt64) in
            let before = Self.netnsInode()
            let inside = try NetworkNamespace.run(in: ns) { Self.netnsInode() }
            return (before, inside, Self.netnsInode())
        }
        #expect(before != 0 && inside != before, "the body ran inside the namespace")
        #expect(after == before, "the thread is back where it was")

        // Many namespaced jobs that wake their awaiting tasks, then work with no
        // namespace: it runs in the host's network, where ::1 exists.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<64 { group.addTask { _ = try await BlockingThread.run(name: "in-ns", namespace: ns) { Self.netnsInode() } } }
            try await group.waitForAll()
        }
        let host = Self.netnsInode()
        for _ in 0..<16 {
            let here = try await BlockingThread.run(name: "host") { () throws -> UInt64 in
                let s = try Socket(family: AF_INET6, type: Int32(SOCK_DGRAM.rawValue))
                defer { s.close() }
                try s.bind(SocketAddress(host: "::1", port: 0))
                return Self.netnsInode()
            }
            #expect(here == host)
        }
    }
}
