import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// Catches SIGINT, SIGTERM and SIGHUP for a clean stop. The first signal calls `onFirst`
/// (stop the current cell, finish the manifest, print the resume command); any
/// further signal calls `onSecond`, which should exit at once.
///
/// The default handlers are ignored and the signals delivered through dispatch
/// sources instead, so the handlers run as ordinary code on a queue (not in signal
/// context) and may take locks, write files and print.
public final class InterruptTrap {
    private let signals: [Int32]
    private var sources: [any DispatchSourceSignal] = []
    private let queue = DispatchQueue(label: "peerbench.signals")
    private var count = 0

    public init(
        signals: [Int32] = [SIGINT, SIGTERM, SIGHUP], onFirst: @escaping @Sendable (Int32) -> Void,
        onSecond: @escaping @Sendable (Int32) -> Void
    ) {
        self.signals = signals
        for s in signals {
            signal(s, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: s, queue: queue)
            source.setEventHandler { [unowned self] in
                // Runs on `queue` only, so `count` needs no lock.
                count += 1
                if count == 1 { onFirst(s) } else { onSecond(s) }
            }
            source.resume()
            sources.append(source)
        }
    }

    /// Restores the default handlers.
    public func cancel() {
        sources.forEach { $0.cancel() }
        sources = []
        for s in signals { signal(s, SIG_DFL) }
    }

    deinit { sources.forEach { $0.cancel() } }

    /// "SIGINT" / "SIGTERM" / "SIGHUP" for messages.
    public static func name(_ s: Int32) -> String { WorkerProcess.signalName(s) }
}
