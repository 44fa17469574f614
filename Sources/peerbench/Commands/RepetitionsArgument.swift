import ArgumentParser
import PeerBenchCore

/// `--repetitions N | auto | auto:MAX`.
enum RepetitionsArgument: ExpressibleByArgument, Equatable {
    case fixed(Int)
    case auto(max: Int?)
    /// Kept until `validate()`, which names the problem.
    case invalid(String)

    init?(argument: String) {
        if let (max, problem) = AutoRepetitions.parse(argument) {
            self = problem.map { .invalid($0) } ?? .auto(max: max)
        } else if let n = Int(argument) {
            self = n >= 1 ? .fixed(n) : .invalid("must be at least 1, got \(n)")
        } else {
            self = .invalid("expects a whole number, auto or auto:MAX, got \"\(argument)\"")
        }
    }

    /// As the run core takes it; nil while invalid (validate() refuses that first).
    var requested: RunRequest.Repetitions? {
        switch self {
        case .fixed(let n): .fixed(n)
        case .auto(let max): .auto(max: max)
        case .invalid: nil
        }
    }
}
