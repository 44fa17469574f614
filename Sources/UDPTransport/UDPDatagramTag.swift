import GnuTLSSupport

/// The tag every client datagram of an authenticated cell ends with (issue 24;
/// docs/protocol/udp.md, "Authentication"): the first 8 bytes of HMAC-SHA256 under
/// the cell's data-plane key (`CellContext.dataKey`) over the rest of the datagram.
/// A server with a key drops, and counts, every datagram whose tag does not verify.
struct UDPDatagramTag: Sendable {
    static let size = 8
    let hmac: HMACSHA256

    init(key: [UInt8]) { hmac = HMACSHA256(key: key) }

    /// Writes the tag of `p[0..<length]` at `p + length`.
    @inline(__always)
    func write(over p: UnsafeMutableRawPointer, length: Int) {
        var mac = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        withUnsafeMutableBytes(of: &mac) { m in
            // HMAC-SHA256 is always available in GnuTLS; a failure leaves a tag no server accepts.
            _ = hmac.authenticate(p, count: length, into: m.baseAddress!)
            (p + length).copyMemory(from: m.baseAddress!, byteCount: Self.size)
        }
    }

    /// `datagram` with its tag appended.
    func tagged(_ datagram: [UInt8]) -> [UInt8] {
        var out = datagram + [UInt8](repeating: 0, count: Self.size)
        out.withUnsafeMutableBytes { write(over: $0.baseAddress!, length: datagram.count) }
        return out
    }

    /// Whether `d` ends with the tag of what precedes it (compared in constant time).
    @inline(__always)
    func verifies(_ d: UnsafeRawBufferPointer) -> Bool {
        guard d.count >= UDPDatagramHeader.size + Self.size else { return false }
        let length = d.count - Self.size
        var mac = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        return withUnsafeMutableBytes(of: &mac) { m -> Bool in
            guard hmac.authenticate(d.baseAddress!, count: length, into: m.baseAddress!) else { return false }
            var diff: UInt8 = 0
            for i in 0..<Self.size { diff |= m[i] ^ d[length + i] }
            return diff == 0
        }
    }
}
