import ArgumentParser
import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import RemoteLink

/// `peerbench psk`: the pre-shared key two hosts authenticate the control channel with.
struct PSKCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "psk",
        abstract: "Create the pre-shared key that authenticates `serve` and `run --link remote`.",
        subcommands: [New.self]
    )

    struct New: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "new",
            abstract: "Write a fresh 256-bit key to FILE (mode 0600; an existing file is never overwritten).",
            discussion: """
                The key comes from the kernel's random generator (getrandom). Copy FILE to the other host over a \
                channel you trust (scp, a USB stick) and keep it mode 0600: serve and run refuse a key file that \
                group or others can read or write. The format is one line, `peerbench-psk/1 IDENTITY HEX64` \
                (docs/protocol/control.md).
                """
        )

        @Argument(help: "The key file to create.")
        var file: String

        @Option(help: "The key's name, sent in clear in the TLS handshake (letters, digits, '.', '_', '-'; at most 64).")
        var identity: String = PreSharedKey.defaultIdentity

        func validate() throws {
            if let problem = PreSharedKey.identityProblem(identity) { throw ValidationError("--identity: \(problem)") }
        }

        func run() async throws {
            do {
                let key = try PreSharedKey.generate(identity: identity)
                try key.write(to: file)
                Terminal.out(
                    "wrote a new 256-bit pre-shared key \"\(key.identity)\" to \(file) (mode 0600); "
                        + "copy it to the other host and give it to both `serve` and `run` with --psk-file")
            } catch let error as InputError {
                throw fail(error)
            } catch {
                Terminal.error("\(error)")
                throw ExitStatus.badInput
            }
        }
    }
}
