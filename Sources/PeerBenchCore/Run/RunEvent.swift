/// One step of a run worth telling the user, in the order a run reaches them.
public enum RunEvent: Sendable {
    /// Something wrong that does not stop the run: a torn journal line set aside, a
    /// foreign record, the matrix read from the manifest's copy.
    case warning(String)
    /// The plan is made and the run folder open and locked; from here the run can be
    /// resumed, from `RunResumePoint`.
    case prepared(RunResumePoint)
    /// The testbed is up and the manifest written: the floor and the cells come next.
    case starting(RunStart)
    /// The measurement floor is being measured (`emulatorTiming`: the emulator's too).
    case measuringFloor(emulatorTiming: Bool)
    /// The cells are about to run: each one's estimated seconds, in run order, and how
    /// many cells earlier sessions recorded (on resume).
    case cellsStarting(estimates: [Double], alreadyRecorded: Int)
    /// No further cell runs: all ran, the run was stopped, or a write failed.
    case cellsEnded
    /// A field session's question or note (`FieldPrompter`), for the person carrying the peer.
    case prompt(String)
}
