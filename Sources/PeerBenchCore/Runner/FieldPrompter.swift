import Foundation
import PeerBenchPlugin
import PeerBenchSystem

/// `run --interactive`: the field session's pause before each new place. The runner
/// asks before the first cell of every environment x distance; the person carrying the
/// peer answers Enter (placed, go), `s` (skip this place: its cells are not recorded and
/// a later `--resume` offers them again) or `q` (stop: the run ends resumable, as after
/// Ctrl-C). This is how the field study was carried out by hand.
public enum FieldAnswer: Sendable, Equatable {
    case go, skip, quit
}

/// Asks the questions and reads the answers: an unknown answer is asked again, the end
/// of input counts as `q` (a closed pipe must not run the rest unattended).
public struct FieldPrompter: Sendable {
    public let input: any FieldInput
    /// Writes the question (the CLI: standard error, so records on stdout stay clean).
    public let output: @Sendable (String) -> Void
    /// Called every `keepAliveSeconds` while a question waits for its answer: walking the
    /// peer to the next place takes minutes, longer than a remote peer's idle timeout,
    /// so the remote run pings its control channel from here.
    public let keepAlive: (@Sendable () async -> Void)?
    public let keepAliveSeconds: Double

    public init(
        input: any FieldInput, keepAliveSeconds: Double = 20, keepAlive: (@Sendable () async -> Void)? = nil,
        output: @escaping @Sendable (String) -> Void
    ) {
        self.input = input
        self.output = output
        self.keepAlive = keepAlive
        self.keepAliveSeconds = keepAliveSeconds
    }

    /// Asks about `site`, whose `cells` cells come next.
    public func ask(_ site: FieldSite, cells: Int, stop: @Sendable () -> Bool = { false }) -> FieldAnswer {
        output("peerbench: place the peer at \(site), press Enter (s: skip these \(cells) cell\(cells == 1 ? "" : "s"), q: stop; resume later)")
        while true {
            guard let line = input.readLine(stop: stop) else {
                // After Ctrl-C the interrupt handler says what happens; only a closed input needs saying.
                if !stop() { output("peerbench: no answer (end of input): stopping") }
                return .quit
            }
            switch line.trimmingCharacters(in: .whitespaces).lowercased() {
            case "": return .go
            case "s", "skip": return .skip
            case "q", "quit": return .quit
            default: output("peerbench: answer Enter (go), s (skip) or q (stop)")
            }
        }
    }

    /// The cells in field order: every cell of a place together (repetitions included),
    /// places in the order they first appear, each place's cells in their run order. The
    /// peer is then carried to each place once.
    public static func groupedBySite(_ cells: [Cell]) -> [Cell] {
        var order: [FieldSite] = []
        var groups: [FieldSite: [Cell]] = [:]
        for cell in cells {
            let site = FieldSite(cell)
            if groups[site] == nil { order.append(site) }
            groups[site, default: []].append(cell)
        }
        return order.flatMap { groups[$0]! }
    }
}

/// The runner's side of a field session: one per `Runner.run`, remembering the place
/// the peer is at and whether it was skipped.
struct FieldGate {
    enum Decision { case run, skip, stop }

    let prompter: FieldPrompter
    private var site: FieldSite?
    private var skipping = false
    /// The places skipped, for the run's summary.
    private(set) var skipped: [FieldSite] = []

    init(_ prompter: FieldPrompter) { self.prompter = prompter }

    /// Decides about `cells[index]`, asking when it is the first of a new place. The
    /// question waits on a thread of its own (the person may take minutes); the
    /// stopper firing meanwhile (Ctrl-C) ends the wait as a stop.
    mutating func decide(_ cells: [Cell], at index: Int, stopper: CellStopper) async -> Decision {
        let here = FieldSite(cells[index])
        if here != site {
            site = here
            let count = cells[index...].prefix { FieldSite($0) == here }.count
            let prompter = self.prompter
            let keepAlive = prompter.keepAlive.map { action in
                Task {
                    while !Task.isCancelled {
                        try? await Task.sleep(nanoseconds: UInt64(prompter.keepAliveSeconds * 1e9))
                        if !Task.isCancelled { await action() }
                    }
                }
            }
            let answer =
                (try? await BlockingThread.run(name: "field-prompt") {
                    prompter.ask(here, cells: count, stop: { stopper.hasFired })
                }) ?? .quit
            keepAlive?.cancel()
            await keepAlive?.value
            switch answer {
            case .go: skipping = false
            case .skip:
                skipping = true
                skipped.append(here)
            case .quit: return .stop
            }
        }
        return skipping ? .skip : .run
    }
}
