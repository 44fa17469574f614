#if canImport(Glibc)
    import Glibc
#endif

/// The one source of secret random bytes in PeerBench: the kernel's CSPRNG
/// (getentropy(3), which is getrandom(2)). Keys (the control channel's pre-shared key,
/// a cell's data-plane key), QUIC connection ids and ngtcp2's random draws, and the
/// serial of serve's certificate all come from here. For reproducible draws use
/// `SeededRandom` instead.
public enum SecureRandom {
    /// getentropy(3) gives at most this many bytes a call.
    static let chunk = 256

    /// Fills `buffer` with random bytes.
    public static func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(SystemError) {
        guard let base = buffer.baseAddress else { return }
        var done = 0
        while done < buffer.count {
            let n = min(chunk, buffer.count - done)
            try syscall("getentropy") { getentropy(base + done, n) }
            done += n
        }
    }

    /// `count` random bytes.
    public static func bytes(_ count: Int) throws(SystemError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        try out.withUnsafeMutableBytes { b in Result { () throws(SystemError) in try fill(b) } }.get()
        return out
    }
}
