import ArgumentParser
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchTestbed

struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the transport plugins with their options and defaults, and the link model's environments."
    )

    func run() async throws {
        let registry = Wiring.registry
        for name in registry.names {
            let d = registry.type(named: name)!.descriptor
            Terminal.out("\(d.name): \(d.summary)\(d.usesPayload ? "" : " (ignores the payload dimension)")")
            if d.options.isEmpty {
                Terminal.out("  (no options)")
            } else {
                var t = TextTable(["option", "type", "default", "meaning"])
                for o in d.options { t.add([o.key, o.type, o.defaultValue, o.help]) }
                Terminal.out(t.render().split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
            }
            Terminal.out("")
        }
        let model = Wiring.linkModel
        Terminal.out("Environments: \(model.builtInEnvironments.joined(separator: ", "))")
        for line in model.describe() { Terminal.out("  " + line) }
        Terminal.out("")
        for line in EnergyModel.standard.describe() { Terminal.out(line) }
    }
}
