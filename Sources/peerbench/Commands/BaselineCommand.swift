import ArgumentParser
import PeerBenchAnalysis
import PeerBenchPlugin

/// `peerbench baseline save|list`: runs kept under a name for `compare --baseline NAME`
/// (docs/COMPARE.md, "Named baselines").
struct BaselineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "baseline",
        abstract: "Keep a run under a name for `compare --baseline NAME`, and list the names kept.",
        subcommands: [Save.self, List.self]
    )

    struct Location: ParsableArguments {
        @Option(name: .customLong("baselines-dir"), help: ArgumentHelp("Where named baselines are kept.", valueName: "DIR"))
        var directory: String = BaselineStore.defaultDirectory
    }

    struct Save: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "save",
            abstract: "Keep RUN_DIR's manifest and records as the baseline NAME.",
            discussion: """
                The run must have a manifest.json and records that compare. NAME: 1-64 letters, digits, \
                '.', '_' or '-'. An existing NAME is kept unless --replace; the new copy is complete before \
                it takes the name.
                """
        )

        @Argument(help: "The baseline's name.")
        var name: String

        @Argument(help: "The run folder to keep.")
        var runDirectory: String

        @OptionGroup var location: Location

        @Flag(help: "Overwrite a baseline of the same name.")
        var replace = false

        func run() async throws {
            let store = BaselineStore(directory: location.directory)
            do {
                let e = try store.save(name: name, runDirectory: runDirectory, replace: replace)
                Terminal.out(
                    "saved \(e.records) records (\(e.scenarios) scenarios; \(e.labels.joined(separator: ", "))) of \(runDirectory) "
                        + "as baseline \"\(e.name)\" in \(store.path(of: e.name))")
            } catch {
                throw fail(error)
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "The baselines kept, one per line.")

        @OptionGroup var location: Location

        func run() async throws {
            let store = BaselineStore(directory: location.directory)
            let (entries, problems) = store.list()
            problems.forEach { Terminal.err("peerbench: warning: \($0)") }
            guard !entries.isEmpty else {
                Terminal.out("no baselines in \(store.directory); save one with `peerbench baseline save NAME RUN_DIR`")
                return
            }
            var t = TextTable(["name", "saved", "matrix", "link", "records", "from", "note"])
            for e in entries {
                t.add([e.name, e.savedAt, e.matrixFile, e.linkMode, "\(e.records)", e.source, e.note ?? ""])
            }
            Terminal.out(t.render())
        }
    }
}
