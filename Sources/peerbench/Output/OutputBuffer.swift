import Foundation

/// Standard output through a 1 MiB buffer: compare's JSON of 200 000 records is some
/// 20 000 pieces, written as a hundred writes rather than one each.
struct OutputBuffer {
    private var bytes: [UInt8] = []
    private static let limit = 1 << 20

    init() { bytes.reserveCapacity(Self.limit + (64 << 10)) }

    mutating func append(_ piece: [UInt8]) {
        bytes += piece
        if bytes.count >= Self.limit { flush() }
    }

    /// Writes what is buffered; call once at the end too.
    mutating func flush() {
        guard !bytes.isEmpty else { return }
        FileHandle.standardOutput.write(Data(bytes))
        bytes.removeAll(keepingCapacity: true)
    }
}
