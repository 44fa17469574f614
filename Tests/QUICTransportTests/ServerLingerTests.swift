import Testing

@testable import QUICTransport

/// How long the server keeps retransmitting an unacknowledged REPORT to a silent client
/// (`ServerSession.lingerNanos`): long enough for a fade on the radio link to pass
/// (a field-study run lost a quic cell to three probe timeouts, 0.4 s), never past 5 s.
@Suite
struct ServerLingerTests {
    @Test(
        "the linger outlasts a 2 s fade at any round trip, is three probe timeouts where those are longer, and stops at 5 s",
        arguments: [
            (1_000_000, 500_000), (33_000_000, 8_000_000), (200_000_000, 50_000_000), (400_000_000, 100_000_000), (2_000_000_000, 1_000_000_000),
        ]
            as [(UInt64, UInt64)])
    func lingerOutlastsAFade(srtt: UInt64, rttvar: UInt64) {
        let linger = ServerSession.lingerNanos(smoothedRTT: srtt, rttVar: rttvar)
        let pto = srtt + max(4 * rttvar, 1_000_000) + 25_000_000
        #expect(linger >= 2_000_000_000 && linger <= 5_000_000_000, "\(linger)")
        #expect(linger >= min(3 * pto, 5_000_000_000), "three probe timeouts (\(3 * pto)) unless past the cap: \(linger)")
        // The old rule, three probe timeouts from 100 ms up: over AWDL's windows (srtt
        // 33 ms, rttvar 8 ms) 0.27 s, shorter than one correlated fade.
        if srtt == 33_000_000 { #expect(3 * pto < 300_000_000 && linger == 2_000_000_000) }
    }
}
