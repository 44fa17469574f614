import Foundation
import Testing

/// `peerbench psk new` as a user runs it: the file, its mode, the exit codes and messages.
@Suite struct PSKCommandTests {
    @Test func newWritesAPrivateKeyFileAndRefusesToOverwriteIt() throws {
        let dir = CLI.tempDir()
        let file = dir + "/lab.psk"
        let r = try CLI.run(["psk", "new", file, "--identity", "lab-1"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            r.stdout == "wrote a new 256-bit pre-shared key \"lab-1\" to \(file) (mode 0600); "
                + "copy it to the other host and give it to both `serve` and `run` with --psk-file\n")
        let text = try String(contentsOfFile: file, encoding: .utf8)
        let words = text.dropLast().split(separator: " ")
        #expect(text.hasSuffix("\n") && words.count == 3 && words[0] == "peerbench-psk/1" && words[1] == "lab-1")
        #expect(words[2].count == 64 && words[2].allSatisfy(\.isHexDigit))
        let mode = (try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600)

        let again = try CLI.run(["psk", "new", file])
        #expect(again.status == 2)
        #expect(
            again.stderr
                == "peerbench: error: \(file): the file already exists; a key is never overwritten (remove it first, or choose another name)\n")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == text)

        let second = try CLI.run(["psk", "new", dir + "/other.psk"])
        #expect(second.status == 0)
        #expect(try String(contentsOfFile: dir + "/other.psk", encoding: .utf8).split(separator: " ")[2] != words[2])
    }

    @Test func badIdentityAndUnwritablePlaceAreUsageAndInputErrors() throws {
        let dir = CLI.tempDir()
        let bad = try CLI.run(["psk", "new", dir + "/k", "--identity", "has space"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--identity: the identity \"has space\" may only hold letters, digits, '.', '_' and '-'"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/k"))
        let nowhere = try CLI.run(["psk", "new", dir + "/missing/k"])
        #expect(nowhere.status == 2)
        #expect(nowhere.stderr == "peerbench: error: \(dir)/missing/k: cannot create the key file: No such file or directory\n")
    }
}
