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

    /// The count the plan expands to: N, or MAX (nil: the matrix's).
    var count: Int? {
        switch self {
        case .fixed(let n): n
        case .auto(let max): max
        case .invalid: nil
        }
    }

    var isAuto: Bool { if case .auto = self { true } else { false } }

    /// As a manifest stores it, for the resume check.
    var spelling: String {
        switch self {
        case .fixed(let n): "\(n)"
        case .auto(let max): max.map { "auto:\($0)" } ?? "auto"
        case .invalid(let p): p
        }
    }
}
