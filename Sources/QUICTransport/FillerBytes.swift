/// The bytes of workload messages whose content nobody reads (requests, responses,
/// isochronous frames): one immutable 64 KiB block, borrowed by every stream that
/// needs such bytes, so a 16 MiB response or 100 000 frames cost no memory of their
/// own while ngtcp2 holds them until acknowledged.
enum FillerBytes {
    static let size = 65_536
    /// Never freed and never written after it is made: safe to share between threads.
    nonisolated(unsafe) static let region: UnsafeRawBufferPointer = {
        let p = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        // A fixed pseudo-random pattern: incompressible like the bulk phase's bodies.
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        for i in 0..<size {
            x ^= x << 13
            x ^= x >> 7
            x ^= x << 17
            p[i] = UInt8(truncatingIfNeeded: x)
        }
        return UnsafeRawBufferPointer(p)
    }()
}

extension StreamSender {
    /// Queues `count` filler bytes (`FillerBytes`), borrowed, not copied.
    func appendFiller(_ count: Int) {
        let whole = count / FillerBytes.size, rest = count % FillerBytes.size
        if whole > 0 { append(borrowing: FillerBytes.region, repeats: UInt64(whole)) }
        if rest > 0 { append(borrowing: UnsafeRawBufferPointer(rebasing: FillerBytes.region[0..<rest])) }
    }
}
