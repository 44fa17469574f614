import Testing
@testable import RemoteLink

/// HELLO's version rule: the highest common version, or a mismatch both sides can act on.
@Suite struct ControlHelloTests {
    typealias Hello = ControlMessage.Hello

    @Test func theHighestCommonVersionWins() {
        let a = Hello(protocolVersions: [1, 2, 3], softwareVersion: "a", plugins: [])
        #expect(a.commonVersion(with: Hello(protocolVersions: [2, 3, 4], softwareVersion: "b", plugins: [])) == 3)
        #expect(a.commonVersion(with: Hello(protocolVersions: [1], softwareVersion: "b", plugins: [])) == 1)
        #expect(a.commonVersion(with: Hello(protocolVersions: [4, 5], softwareVersion: "b", plugins: [])) == nil)
        let local = Hello.local(softwareVersion: "0.9", plugins: ["tcp"])
        #expect(local.protocolVersions == RemoteLink.controlProtocolVersions && local.commonVersion(with: local) == 1)
    }

    @Test func aMismatchNamesBothSides() {
        let mine = Hello(protocolVersions: [1], softwareVersion: "0.9", plugins: [])
        let theirs = Hello(protocolVersions: [2, 3], softwareVersion: "1.4", plugins: [])
        #expect(mine.versionMismatch(with: theirs)
                == "no common control protocol version: this side (PeerBench 0.9) speaks 1, the peer (PeerBench 1.4) speaks 2, 3; "
                + "install the same PeerBench version on both hosts")
    }
}
