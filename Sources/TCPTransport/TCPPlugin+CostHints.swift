import PeerBenchPlugin
import PeerBenchStreams

extension TCPPlugin {
    /// Linux's TCP (`CostHints.kernelTCP`).
    public func costHints(link: ResolvedLink) -> CostHints { .kernelTCP(link: link) }
}
