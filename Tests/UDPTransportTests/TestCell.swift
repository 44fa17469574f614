import Foundation
import Logging
import PeerBenchCore

/// A loopback cell built by hand, as the runner would build it.
func makeCell(payload: Payload?, probes: Int = 10, seconds: Double = 20) -> CellContext {
    CellContext(
        cellID: "test", repetition: 0, seed: 1, payload: payload, rttProbes: probes,
        deadline: MonotonicClock.now() + UInt64(seconds * 1e9),
        link: ResolvedLink(environment: "test", distanceMeters: nil, distanceLabel: "1"),
        client: Endpoint(address: "127.0.0.1"), server: Endpoint(address: "127.0.0.1"),
        cancellation: CellCancellation(), logger: Logger(label: "test"))
}
