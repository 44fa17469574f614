/// The bulk phase's one message: a DATA frame header and `size` body bytes, in
/// memory that neither moves nor changes while ngtcp2 may still point at it.
final class MessageBlock {
    let bytes: UnsafeMutableRawBufferPointer

    init(size: Int, seed: UInt64) {
        bytes = .allocate(byteCount: FrameEncoder.headerSize + size, alignment: 16)
        let header = FrameEncoder.header(.data, length: UInt32(size))
        for (i, b) in header.enumerated() { bytes[i] = b }
        // Seeded pseudo-random body: incompressible, reproducible per cell.
        var x = seed | 1
        for i in 0..<size {
            x ^= x << 13
            x ^= x >> 7
            x ^= x << 17
            bytes[FrameEncoder.headerSize + i] = UInt8(truncatingIfNeeded: x)
        }
    }

    deinit { bytes.deallocate() }

    var region: UnsafeRawBufferPointer { UnsafeRawBufferPointer(bytes) }
}
