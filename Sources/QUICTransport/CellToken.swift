import CNgtcp2
import PeerBenchSystem
import PeerBenchPlugin

/// What the cell's client proves to the cell's server in its first frame (HELLO,
/// docs/protocol/quic.md §4): SHA-256 over a label, the cell id, the repetition and
/// the cell seed. Client and server derive it on their own from the cell (they share
/// no memory), and a QUIC connection from anyone else, even one that completes a
/// handshake with our ALPN, cannot present it unless it knows the run's matrix.
///
/// It keeps strays from ending or spoiling a measurement; it is not authentication
/// against someone who holds the matrix (use `mutualTLS` for that).
struct CellToken: Equatable, Sendable {
    static let length = 32
    let bytes: [UInt8]

    init(bytes: [UInt8]) { self.bytes = bytes }

    init(cellID: String, repetition: Int, seed: UInt64) {
        var input = Array("peerbench-quic/1 cell token\0".utf8) + Array(cellID.utf8) + [0]
        input += FrameEncoder.be(UInt64(repetition)) + FrameEncoder.be(seed)
        var digest = [UInt8](repeating: 0, count: Self.length)
        let rv = input.withUnsafeBytes { i in
            digest.withUnsafeMutableBytes { gnutls_hash_fast(GNUTLS_DIG_SHA256, i.baseAddress, i.count, $0.baseAddress) }
        }
        // SHA-256 is always available in GnuTLS; a failure leaves a token no peer matches.
        precondition(rv == 0, "gnutls_hash_fast(SHA-256) failed: \(rv)")
        bytes = digest
    }

    init(cell: CellContext) { self.init(cellID: cell.cellID, repetition: cell.repetition, seed: cell.seed) }

    /// Hex, for logs and for the interop peer's `--token`.
    var hex: String { bytes.map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined() }
}
