/// What the runner tells its caller as cells go (the CLI prints progress from it).
public protocol RunObserver: Sendable {
    func cellStarted(index: Int, total: Int, cell: Cell)
    func cellFinished(index: Int, total: Int, cell: Cell, record: Record)
    /// The run was interrupted while `cell` ran; it is not recorded and runs again on resume.
    func cellInterrupted(index: Int, total: Int, cell: Cell)
}

extension RunObserver {
    public func cellInterrupted(index: Int, total: Int, cell: Cell) {}
}
