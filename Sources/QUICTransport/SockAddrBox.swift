import CNgtcp2
import PeerBenchPlugin
import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A socket address in a stable heap box (ngtcp2 copies it; we only lend it).
final class SockAddrBox {
    private let storage: UnsafeMutablePointer<sockaddr_storage>
    let length: socklen_t

    init(_ address: SocketAddress) throws {
        storage = .allocate(capacity: 1)
        storage.initialize(to: sockaddr_storage())
        var len: socklen_t = 0
        let s = storage
        try address.withSockAddr { sa, l in
            UnsafeMutableRawPointer(s).copyMemory(from: sa, byteCount: Int(l))
            len = l
        }
        length = len
    }

    init(raw: UnsafeRawPointer, length: socklen_t) {
        storage = .allocate(capacity: 1)
        storage.initialize(to: sockaddr_storage())
        UnsafeMutableRawPointer(storage).copyMemory(from: raw, byteCount: Int(length))
        self.length = length
    }

    deinit { storage.deallocate() }

    func withPointer<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        UnsafeRawPointer(storage).withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
    }

    /// Whether `address` is this one, byte for byte.
    func matches(_ address: ngtcp2_addr) -> Bool {
        guard let a = address.addr, address.addrlen == length else { return false }
        return memcmp(a, storage, Int(length)) == 0
    }
}

extension UnsafeMutablePointer where Pointee == ngtcp2_path_storage {
    /// The storage's `path` member, at a stable address (the storage is on the heap).
    var pathPointer: UnsafeMutablePointer<ngtcp2_path> {
        (UnsafeMutableRawPointer(self) + MemoryLayout<ngtcp2_path_storage>.offset(of: \.path)!).assumingMemoryBound(to: ngtcp2_path.self)
    }
}
