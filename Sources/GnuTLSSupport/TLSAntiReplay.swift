internal import CGnuTLS
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A server's defence against replayed 0-RTT data (RFC 8446, section 8): GnuTLS's
/// anti-replay context (ClientHellos too old for its window are refused early data)
/// and the memory of ClientHellos already seen within it, so the same early data is
/// accepted once. Shared by every session of one server; bounded: when full it
/// forgets the oldest entries, so a replay can only succeed after `capacity` newer
/// ClientHellos (far more than a benchmark cell sees).
public final class TLSAntiReplay: @unchecked Sendable {
    // @unchecked: the GnuTLS context is set up in init and then only read by GnuTLS; `seen` is behind a Mutex.

    let handle: OpaquePointer
    private let seen = Mutex<(keys: Set<[UInt8]>, order: [[UInt8]])>(([], []))
    public let capacity: Int

    /// - Parameter windowMilliseconds: how old a ClientHello with early data may be
    ///   (GnuTLS's default is 10 s).
    public init(windowMilliseconds: UInt32 = 10_000, capacity: Int = 4096) throws(GnuTLSError) {
        var h: gnutls_anti_replay_t?
        try GnuTLSError.check(gnutls_anti_replay_init(&h), "creating the anti-replay context")
        handle = h!
        self.capacity = capacity
        gnutls_anti_replay_set_window(handle, windowMilliseconds)
        gnutls_anti_replay_set_add_function(handle, antiReplayAdd)
        gnutls_anti_replay_set_ptr(handle, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit { gnutls_anti_replay_deinit(handle) }

    /// Remembers `key`; false when it was already there (a replay).
    func add(_ key: [UInt8]) -> Bool {
        seen.withLock { s in
            guard s.keys.insert(key).inserted else { return false }
            s.order.append(key)
            if s.order.count > capacity {
                s.keys.remove(s.order.removeFirst())
            }
            return true
        }
    }

    /// How many ClientHellos it remembers (for tests).
    public var count: Int { seen.withLock { $0.keys.count } }
}

/// GnuTLS asks whether it saw this ClientHello's key before: 0 = new (early data may
/// be accepted), GNUTLS_E_DB_ENTRY_EXISTS = a replay.
private func antiReplayAdd(
    _ ptr: UnsafeMutableRawPointer?, _ expires: time_t, _ key: UnsafePointer<gnutls_datum_t>?,
    _ data: UnsafePointer<gnutls_datum_t>?
) -> Int32 {
    guard let ptr, let key, let bytes = key.pointee.data else { return GNUTLS_E_DB_ERROR }
    let store = Unmanaged<TLSAntiReplay>.fromOpaque(ptr).takeUnretainedValue()
    return store.add(Array(UnsafeBufferPointer(start: bytes, count: Int(key.pointee.size)))) ? 0 : GNUTLS_E_DB_ENTRY_EXISTS
}
