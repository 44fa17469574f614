import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import Testing

@testable import QUICTransport

/// `migrate`'s option, its dead-path rule and its record figures, without sockets
/// (the migration itself: QUICMigrationTests).
@Suite struct QUICMigrationPolicyTests {
    static let path = JSONPath.root.key("transports").index(2).key("options")

    @Test func optionForms() throws {
        #expect(try makePlugin([:]).config.migrate == nil)
        #expect(try makePlugin(["migrate": false]).config.migrate == nil)
        #expect(try makePlugin(["migrate": true]).config.migrate == MigrationPolicy(afterPTOs: 3))
        #expect(try makePlugin(["migrate": ["afterPTOs": 5]]).config.migrate == MigrationPolicy(afterPTOs: 5))
    }

    @Test func badValuesNameTheOption() throws {
        #expect { _ = try QUICPlugin(options: PluginOptions(.object(JSONObject(["migrate": ["afterPTOs": 0]])), path: Self.path)) } throws: {
            "\($0)".contains("$.transports[2].options.migrate.afterPTOs") && "\($0)".contains("out of range")
        }
        #expect { _ = try QUICPlugin(options: PluginOptions(.object(JSONObject(["migrate": "yes"])), path: Self.path)) } throws: {
            "\($0)".contains("$.transports[2].options.migrate: expected true, false or an object")
        }
        #expect { _ = try makePlugin(["migrate": ["afterPTO": 2]]) } throws: { "\($0)".contains("unknown option \"afterPTO\"") }
    }

    /// afterPTOs x RFC 9002's PTO (smoothed RTT + max(4 x variance, 1 ms) + 25 ms), within 150 ms to 3 s.
    @Test func silence() {
        let p = MigrationPolicy.default
        // Loopback: 3 x (1 + 2 + 25) ms = 84 ms, raised to the 150 ms floor.
        #expect(p.silenceNanos(smoothedRTT: 1_000_000, rttVariance: 500_000) == 150_000_000)
        // 100 ms RTT, 20 ms variance: 3 x (100 + 80 + 25) ms.
        #expect(p.silenceNanos(smoothedRTT: 100_000_000, rttVariance: 20_000_000) == 615_000_000)
        // Each migration already made doubles it: 2 x 615 ms, then 4 x.
        #expect(p.silenceNanos(smoothedRTT: 100_000_000, rttVariance: 20_000_000, moves: 1) == 1_230_000_000)
        #expect(p.silenceNanos(smoothedRTT: 100_000_000, rttVariance: 20_000_000, moves: 2) == 2_460_000_000)
        // A 2 s RTT is capped at 3 s.
        #expect(p.silenceNanos(smoothedRTT: 2_000_000_000, rttVariance: 0) == 3_000_000_000)
    }

    /// Dead only after the silence with data in flight; an idle moment or a migration restarts it.
    @Test func pathWatch() {
        var w = PathWatch(policy: .default, now: 0)
        func at(_ ms: UInt64, inFlight: UInt64 = 1_000, ack: UInt64 = 0) -> PathWatch.Sample {
            PathWatch.Sample(now: ms * 1_000_000, bytesInFlight: inFlight, lastProgressAt: ack * 1_000_000, smoothedRTT: 1_000_000, rttVariance: 0)
        }
        let idle = w.isDead(at(1_000, inFlight: 0))
        #expect(!idle, "nothing owed: no silence")
        #expect(w.deadline(at(1_001)) == 1_150_000_000, "the silence counts from the idle moment, not the old acknowledgement")
        let early = w.isDead(at(1_149)), due = w.isDead(at(1_150))
        #expect(!early && due)
        let acked = w.isDead(at(1_200, ack: 1_100))
        #expect(!acked, "an acknowledgement moves the silence's start")
        w.moved(at: 1_300_000_000)
        let afterMove = w.isDead(at(1_599)), againDue = w.isDead(at(1_600))
        #expect(!afterMove && againDue, "after a migration, a silence twice as long")
        w.restart(at: 2_000_000_000)
        let retry = w.isDead(at(2_300))
        #expect(retry, "a failed attempt waits one more silence, not a longer one")
    }

    /// scenario.migrations and migration_ms; a migration is not a reconnect.
    @Test func scenarioFigures() {
        let outage = ScenarioEvent(name: "o", kind: "outage", startSeconds: 2, endSeconds: 4, deadSeconds: 2, deadStartSeconds: 2, timeline: [])
        let moved = [
            MigrationEvent(
                silentSinceNanos: 1_000_000_000, migratedAtNanos: 1_200_000_000, validatedAtNanos: 1_201_000_000,
                backAtNanos: 1_203_500_000)
        ]
        let s = ScenarioFigures(event: outage).figures(
            receiver: nil, delivery: nil,
            ending: .init(completed: true, failedAtSeconds: nil, migrations: moved))
        #expect(s.migrations == 1 && s.migrationMs == 3.5)
        #expect(s.reconnects == 0 && s.survived == true && s.reconnectMs == nil)
        let plain = ScenarioFigures(event: outage).figures(receiver: nil, delivery: nil, ending: .init(completed: true, failedAtSeconds: nil))
        #expect(plain.migrations == nil && plain.migrationMs == nil)
        let none = ScenarioFigures(event: outage).figures(
            receiver: nil, delivery: nil, ending: .init(completed: true, failedAtSeconds: nil, migrations: []))
        #expect(none.migrations == 0 && none.migrationMs == nil)
    }
}
