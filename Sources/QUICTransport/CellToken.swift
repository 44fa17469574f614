import GnuTLSSupport
import PeerBenchPlugin
import PeerBenchSystem

/// What the cell's client proves to the cell's server in its first frame (HELLO,
/// docs/protocol/quic.md §4): SHA-256 over a label, the cell id, the repetition and
/// the cell seed. Client and server derive it on their own from the cell (they share
/// no memory), and a QUIC connection from anyone else, even one that completes a
/// handshake with our ALPN, cannot present it unless it knows the run's matrix.
///
/// It keeps strays from ending or spoiling a measurement; it is not authentication
/// against someone who holds the matrix (use `mutualTLS` for that).
struct CellToken: Equatable, Sendable {
    static let length = SHA256.byteCount
    let bytes: [UInt8]

    init(bytes: [UInt8]) { self.bytes = bytes }

    init(cellID: String, repetition: Int, seed: UInt64) {
        var input = Array("peerbench-quic/1 cell token\0".utf8) + Array(cellID.utf8) + [0]
        input += FrameEncoder.be(UInt64(repetition)) + FrameEncoder.be(seed)
        // SHA-256 is always available in GnuTLS; without it no token could ever match.
        do { bytes = try SHA256.digest(input) } catch { preconditionFailure("the cell token's \(error)") }
    }

    init(cell: CellContext) { self.init(cellID: cell.cellID, repetition: cell.repetition, seed: cell.seed) }

    /// Hex, for logs and for the interop peer's `--token`.
    var hex: String { Hex.encode(bytes) }
}
