import PeerBenchPlugin

extension CellExecutor {
    /// Starts `cell`'s competing flow between its endpoints, nil when it has none or
    /// the link is not emulated: over loopback (`--link none`) a saturating flow would
    /// only load the CPU the cell runs on, and a remote peer's endpoints are not ours.
    func startCrossTraffic(_ cell: Cell, link: ResolvedLink, endpoints: (client: Endpoint, server: Endpoint)) async throws -> CrossTrafficFlow? {
        guard let spec = cell.crossTraffic else { return nil }
        guard testbed.mode == .emulated else {
            logger.warning("cross traffic (\(spec)) runs only over the emulated link; \(cell.summary) runs without it")
            return nil
        }
        return try await CrossTrafficFlow(spec, client: endpoints.client, server: endpoints.server, mtu: link.mtu ?? 1_500)
    }
}
