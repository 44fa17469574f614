import PeerBenchPlugin
import PeerBenchTestbed

/// What a `MatrixRun` tells its caller as it goes: each `RunEvent`, and every cell
/// through `RunObserver`. The run itself prints nothing; the CLI turns these into its
/// lines on standard error (and a test can simply collect them).
public protocol RunReporter: RunObserver {
    func report(_ event: RunEvent)
}
