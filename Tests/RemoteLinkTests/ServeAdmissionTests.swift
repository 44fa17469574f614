import Testing

@testable import RemoteLink

/// serve's handshake slots and its drop log, without sockets or clocks (issue 24,
/// finding 2; the live behaviour is ServeLockoutTests).
@Suite struct ServeAdmissionTests {
    @Test func oneAddressFillsOnlyItsShare() {
        var a = ServeAdmission(total: 5, perAddress: 2)
        #expect(a.admit("10.0.0.9") == .admitted)
        #expect(a.admit("10.0.0.9") == .admitted)
        #expect(a.admit("10.0.0.9") == .addressFull)
        #expect(a.admit("10.0.0.2") == .admitted)
        #expect(a.admit("10.0.0.3") == .admitted)
        #expect(a.admit("10.0.0.4") == .admitted)
        #expect(a.admit("10.0.0.5") == .allFull)
        a.release("10.0.0.9")
        #expect(a.running(from: "10.0.0.9") == 1 && a.running == 4)
        #expect(a.admit("10.0.0.5") == .admitted)
        a.release("10.0.0.77")  // never admitted: nothing changes
        #expect(a.running == 5)
    }

    @Test func dropsAreLoggedOncePerIntervalThenSummarised() {
        final class Lines: @unchecked Sendable { var all: [String] = [] }
        let lines = Lines()
        let drops = ServeDropLog(log: ServeLog { lines.all.append($0) }, intervalSeconds: 10)
        let s: UInt64 = 1_000_000_000
        drops.dropped("10.0.0.9", "refused: busy", now: 100 * s)
        for i in 1...500 { drops.dropped(i % 5 == 0 ? "10.0.0.8" : "10.0.0.9", "refused: busy", now: 100 * s + UInt64(i) * 10_000_000) }
        #expect(lines.all.count == 1)
        drops.dropped("10.0.0.2", "dropped: timed out", now: 111 * s)
        #expect(lines.all.count == 3)
        #expect(lines.all[0].hasSuffix("serve: connection from 10.0.0.9: refused: busy"))
        #expect(lines.all[1].hasSuffix("serve: 500 more connections refused or dropped in the last 11 s from 2 addresses (most from 10.0.0.9: 400)"))
        #expect(lines.all[2].hasSuffix("serve: connection from 10.0.0.2: dropped: timed out"))
    }
}
