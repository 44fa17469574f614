extension RecordKey {
    /// 128 bits of a record's run, cell and repetition: how compare and report find the
    /// record a line (or a samples line) is about without keeping three strings per
    /// record. Made from the strings' UTF-8 bytes, so a journal line's raw bytes
    /// (`RecordLine`) and a decoded key give the same digest. Never persisted.
    public typealias Digest = StableDigest

    public var digest: Digest {
        var run = runID, cell = cellID
        return run.withUTF8 { r in cell.withUTF8 { c in Self.digest(runID: r, cellID: c, repetition: repetition) } }
    }

    /// The digest of a key given as its strings' UTF-8 bytes.
    public static func digest(runID: UnsafeBufferPointer<UInt8>, cellID: UnsafeBufferPointer<UInt8>, repetition: Int) -> Digest {
        var h = StableDigest.Builder()
        h.add(UnsafeRawBufferPointer(runID))
        h.add(UnsafeRawBufferPointer(cellID))
        h.mix(UInt64(bitPattern: Int64(repetition)))
        return h.finish()
    }
}
