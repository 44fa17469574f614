import PeerBenchPlugin
import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Keeps one cell's IP fragments from spoiling the next (found in the field-study run
/// of 2026-11-26). A udp datagram above the MTU travels as fragments; when the link
/// drops one, the receiving kernel keeps the others in its namespace's reassembly
/// memory until `ipfrag_time` ends (30 s by default), and once that memory reaches
/// `ipfrag_high_thresh` (4 MiB) it drops every new fragment. After a lossy transfer of
/// large datagrams, the next cells' fragmented datagrams were all dropped: 0 of 100
/// x 4 096 B received with no drop on the link.
///
/// So each emulated namespace reassembles with `ipfrag_time` 1 s, the shortest the
/// kernel takes (whole seconds) [A: the fragments of one datagram leave the emulated
/// link's queue back to back, a few ms apart at most, even when the queue itself holds
/// seconds of traffic], and `configure` waits (at most `drainSeconds`) until neither
/// namespace holds fragments before the next cell starts. That wait is the next cell's
/// set-up: 2 s with `ipfrag_time` 2 in the field-study run of 2026-11-29, for every cell
/// after a udp transfer of 4 096 or 9 216 B that lost fragments at the queue. Within a
/// cell the kernel's limit still applies, as it would on a real receiver.
enum FragmentReassembly {
    static let timeoutSeconds = 1
    static let drainSeconds = 2.0

    /// Sets this thread's namespace's reassembly timeout (call inside the namespace).
    static func setTimeout() {
        let f = open("/proc/sys/net/ipv4/ipfrag_time", O_WRONLY | O_CLOEXEC)
        guard f >= 0 else { return }
        let text = "\(timeoutSeconds)"
        _ = write(f, text, text.utf8.count)
        close(f)
    }

    /// Bytes of fragments this thread's namespace holds (`FRAG: inuse N memory M` of
    /// sockstat); 0 when it cannot tell.
    static func heldBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/thread-self/net/sockstat", encoding: .utf8) else { return 0 }
        return parse(sockstat: text)
    }

    /// The `memory` figure of sockstat's FRAG line.
    static func parse(sockstat text: String) -> Int {
        for line in text.split(separator: "\n") where line.hasPrefix("FRAG:") {
            let words = line.split(separator: " ")
            if let i = words.firstIndex(of: "memory"), i + 1 < words.count { return Int(words[i + 1]) ?? 0 }
        }
        return 0
    }

    /// Waits until neither namespace holds fragments, at most `drainSeconds`; returns
    /// the seconds waited.
    @discardableResult
    static func drain(_ namespaces: [NetworkNamespace]) throws -> Double {
        let start = MonotonicClock.now()
        let deadline = start + UInt64(drainSeconds * 1e9)
        for ns in namespaces {
            while try NamespaceThread.run(in: ns, { heldBytes() }) > 0 && MonotonicClock.now() < deadline {
                usleep(50_000)
            }
        }
        return Double(MonotonicClock.elapsed(since: start)) / 1e9
    }
}
