import PeerBenchSystem

/// The persisted hashes of a matrix: cell ids (`Matrix.cellID`) and the matrix hash
/// (`Matrix.hash`), as 16 hex digits of FNV-1a 64 (`FNV1a64`, PeerBenchSystem's one
/// definition). Swift's `Hasher` is randomly seeded per process, so it cannot be used
/// for anything persisted; a cell's seed mixes these with `SplitMix64.mix`.
public enum StableHash {
    /// `FNV1a64.hash(text)` as 16 lowercase hex digits, zero-padded.
    public static func hex(_ text: String) -> String {
        let s = String(FNV1a64.hash(text), radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }
}
