/// The server's gate of an authenticated cell (a remote link's data-plane key): every
/// datagram must carry the cell's tag (`UDPDatagramTag`), so a stranger spoofing the
/// client's address can neither take the session nor add DATA. It counts what it drops
/// for the REPORT. Without a key every datagram passes as it is.
struct UDPTagFilter {
    private let tag: UDPDatagramTag?
    /// Datagrams dropped because their tag did not verify.
    private(set) var dropped = 0

    init(_ tag: UDPDatagramTag?) { self.tag = tag }

    /// The datagram without its tag; nil (counted) when the tag does not verify.
    @inline(__always)
    mutating func admit(_ tagged: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        guard let tag else { return tagged }
        guard tag.verifies(tagged) else {
            dropped += 1
            return nil
        }
        return UnsafeRawBufferPointer(rebasing: tagged[0..<(tagged.count - UDPDatagramTag.size)])
    }
}
