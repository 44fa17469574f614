import CLinkEmulation
import Dispatch
import Foundation
import PeerBenchPlugin
import PeerBenchSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A TUN device owned by this process: created inside a network namespace, it stays
/// there while the emulator reads and writes IP packets through its descriptor.
/// Frames carry a virtio-net header so the kernel may hand over TCP super-packets
/// when the link is lossless (`setSegmentationOffload`).
final class TUNDevice {
    let name: String
    let namespace: NetworkNamespace
    private(set) var fd: Int32

    /// Creates the device `name` in `namespace`. Runs on a short-lived thread, since
    /// the device is created in the namespace of the calling thread.
    init(name: String, in namespace: NetworkNamespace) throws {
        self.name = name
        self.namespace = namespace
        fd = try NamespaceThread.run(in: namespace) {
            // Stray IPv6 traffic (router solicitations, MLD reports) would show up in the
            // link counters; PeerBench's link is IPv4 only.
            for path in ["/proc/sys/net/ipv6/conf/all/disable_ipv6", "/proc/sys/net/ipv6/conf/default/disable_ipv6"] {
                let f = open(path, O_WRONLY | O_CLOEXEC)
                if f >= 0 {
                    _ = write(f, "1", 1)
                    Glibc.close(f)
                }
            }
            FragmentReassembly.setTimeout()
            return try syscall("open /dev/net/tun + TUNSETIFF(\(name))") { pbl_tun_open(name) }
        }
    }

    deinit { close() }

    func close() {
        if fd >= 0 {
            Glibc.close(fd)
            fd = -1
        }
    }

    /// Lets the kernel pass TCP super-packets (TSO + partial checksums) or not.
    func setSegmentationOffload(_ on: Bool) throws {
        try syscall("TUNSETOFFLOAD(\(name))") { pbl_tun_set_offload(fd, on ? 1 : 0) }
    }

    /// Discards whatever the kernel queued on the device (left over from a previous cell).
    func drain() {
        let buf = UnsafeMutableRawPointer.allocate(byteCount: PacketRing.maxFrame, alignment: 16)
        defer { buf.deallocate() }
        while read(fd, buf, PacketRing.maxFrame) > 0 {}
    }
}

/// Runs a closure synchronously on a fresh thread inside a network namespace (the
/// namespace is per thread, so the caller's own thread is never moved).
enum NamespaceThread {
    static func run<T: Sendable>(in namespace: NetworkNamespace, _ body: @escaping @Sendable () throws -> T) throws -> T {
        let result = Mutex<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let outcome = Result { try NetworkNamespace.run(in: namespace, body) }
            result.withLock { $0 = outcome }
            done.signal()
        }
        thread.name = "pb-netns-setup"
        thread.start()
        done.wait()
        return try result.withLock { $0! }.get()
    }
}
