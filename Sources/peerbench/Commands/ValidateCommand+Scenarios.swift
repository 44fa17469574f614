import PeerBenchCore

extension ValidateCommand {
    /// Each scenario, then its timeline per environment x distance as the link model
    /// resolved it (`static` alone prints nothing).
    func printScenarios(_ plan: RunPlan) {
        let m = plan.matrix
        guard m.scenarios.contains(where: { !$0.isStatic }) else { return }
        Terminal.out("")
        Terminal.out("Scenarios (times from the link's start for the cell, on the radio model's clock):")
        for s in m.scenarios {
            Terminal.out("  \(s.summary)")
            guard !s.isStatic else { continue }
            for env in m.environments {
                for d in m.distances {
                    guard let event = plan.links[RunPlan.linkKey(env, d, s)]?.scenario else { continue }
                    Terminal.out("    \(env.name) at \(d.label == "max" ? "max" : d.label + " m"): " + event.timeline.joined(separator: "; "))
                }
            }
        }
    }
}
