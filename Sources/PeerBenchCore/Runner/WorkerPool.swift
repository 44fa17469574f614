/// The worker processes of a run whose transports run at once (`transportsAtOnce`):
/// a worker serves one cell at a time, so a block of N transports needs N of them.
/// The first is the runner's own; the others are started like it, on first need,
/// kept for the whole run (starting a worker costs tens of milliseconds) and ended
/// by `finishExtra`. Without process isolation (`first` nil) every entry is nil and
/// the plugin parts run in the runner's process.
final class WorkerPool {
    private let first: WorkerProcess?
    private var extra: [WorkerProcess] = []

    init(first: WorkerProcess?) {
        self.first = first
    }

    /// Workers for `count` concurrent cells.
    func workers(_ count: Int) -> [WorkerProcess?] {
        guard let first else { return Array(repeating: nil, count: count) }
        while extra.count < count - 1 {
            extra.append(WorkerProcess(executable: first.executable, arguments: first.arguments))
        }
        return [first] + extra.prefix(count - 1).map { Optional($0) }
    }

    /// Ends the workers this pool started (the runner ends its own).
    func finishExtra() {
        for w in extra { w.finish() }
    }
}
