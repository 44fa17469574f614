import Foundation
import Testing

/// `run --interactive`: refused where there is no real peer to place, and where the
/// answers could come from nowhere.
@Suite struct CLIFieldPromptTests {
    @Test func interactiveNeedsARemoteLink() throws {
        for link in ["none", "emulated"] {
            let r = try CLI.run(["run", "matrices/quick.json", "--link", link, "--interactive", "--answers", "-", "--out", CLI.tempDir() + "/run"])
            #expect(r.status == 64)
            #expect(r.stderr.contains("--interactive is for a field session with a real peer (--link remote): an \(link) link has no peer to place"))
        }
    }

    @Test func answersNeedInteractive() throws {
        let r = try CLI.run(["run", "matrices/quick.json", "--link", "none", "--answers", "-", "--out", CLI.tempDir() + "/run"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("--answers needs --interactive"))
    }
}

/// `serve --advertise-name` is refused without `--advertise` (it would publish nothing).
@Suite struct CLIAdvertiseTests {
    @Test func advertiseNameNeedsAdvertise() throws {
        let r = try CLI.run(["serve", "--psk-file", "/nonexistent.psk", "--advertise-name", "lab"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("--advertise-name needs --advertise"))
    }
}
