import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchTestbed

/// The testbeds a run can use, as the executable wires them: the run core knows no
/// concrete one (namespaces and the emulator, a remote peer), only this.
public protocol TestbedFactory: Sendable {
    /// The testbed joining the cells' clients and servers over `mode`, made once the
    /// plan is known and the run folder open. Throw an `InputError` for what the user
    /// must fix (a peer's address, a key file): the run ends `.badInput`; any other
    /// error ends it `.testbedUnavailable`.
    func makeTestbed(_ mode: LinkMode, plan: RunPlan) async throws -> any Testbed

    /// Measures how late `testbed`'s emulator releases packets, for the measurement
    /// floor; nil when `testbed` emulates nothing. Default: nil.
    func releaseErrorProbe(for testbed: any Testbed) -> (@Sendable () async -> MeasurementFloor.ReleaseError?)?

    /// What to do while a field session's question waits (a remote peer's keep-alive:
    /// walking to the next place takes longer than its idle timeout). Default: nothing.
    func keepAlive(for testbed: any Testbed) -> (@Sendable () async -> Void)?
}

extension TestbedFactory {
    public func releaseErrorProbe(for testbed: any Testbed) -> (@Sendable () async -> MeasurementFloor.ReleaseError?)? { nil }
    public func keepAlive(for testbed: any Testbed) -> (@Sendable () async -> Void)? { nil }
}
