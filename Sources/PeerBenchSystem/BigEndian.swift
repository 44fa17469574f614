/// Big-endian integers to and from bytes: every wire format of PeerBench (stream frames,
/// the control channel, udp's datagrams) is big-endian.
extension FixedWidthInteger {
    public var bigEndianBytes: [UInt8] { withUnsafeBytes(of: bigEndian) { Array($0) } }
}

extension UnsafeRawBufferPointer {
    /// A big-endian unsigned integer at `offset` (unaligned reads are fine).
    @inline(__always)
    public func readBE<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T {
        T(bigEndian: loadUnaligned(fromByteOffset: offset, as: T.self))
    }
}
