import Testing

@testable import PeerBenchCore
@testable import PeerBenchPlugin

/// The cost model behind validate, --dry-run, the ETA and the shard balance.
@Suite struct CellCostModelTests {
    func link(rate: Double, loss: Double, phy: Double = 58.6) -> ResolvedLink {
        var l = ResolvedLink(environment: "free-field", distanceMeters: 92, distanceLabel: "max")
        l.delayMs = 1
        l.rateMbps = rate
        l.lossPercent = loss
        l.phyRateMbps = phy
        return l
    }

    /// 2000 x 16 384 B over free-field at "max" (33.3 Mbit/s, 18.2 % loss): the bulk
    /// phase goes at the rate the link carries after loss (33.3 x 0.818 = 27.2 Mbit/s;
    /// on a quiet machine TCP measured 23.3, QUIC 20.7, UDP 37.5 counting what it sent),
    /// not the PHY rate (58.6): about 9.6 s.
    @Test func bulkGoesAtTheRateTheLinkCanCarry() {
        let l = link(rate: 33.3, loss: 18.2)
        let s = CellCost.model(payload: Payload(count: 2000, size: 16384), rttProbes: 0, link: l)
        let bytes = 2000.0 * 16384
        let bulk = bytes / (33.3e6 / 8 * 0.818)
        #expect(abs(bulk - 9.63) < 0.01)
        let rest = s - bulk
        // set-up + handshake (with its loss risk) + the per-message cost, well under a second
        #expect(rest > CellCost.setUpSeconds && rest < 1.0, "\(rest)")
        #expect(s > bytes / (58.6e6 / 8) * 1.5, "not the PHY rate")
    }

    /// Slow start: a window of 14 440 bytes doubles five times to hold the 375 kB a
    /// 100 Mbit/s link carries in a 30 ms round trip, so the bulk phase pays five round
    /// trips less the one those bytes take at the full rate: 0.12 s, whatever the payload
    /// beyond those bytes, and nothing for a transport that sends at once.
    @Test func slowStartPaysTheRoundTripsToOpenTheWindow() {
        var l = link(rate: 100, loss: 0)
        l.delayMs = 14.75  // 2 x 14.75 ms + the 0.5 ms turnaround: a 30 ms round trip
        let usable = 100e6 / 8
        let windowed = CostHints(initialWindowBytes: 14_440)
        #expect(abs(CellCost.slowStartSeconds(92e6, usable: usable, link: l, hints: windowed) - (5 * 0.03 - 0.03)) < 1e-9)
        #expect(abs(CellCost.slowStartSeconds(4e6, usable: usable, link: l, hints: windowed) - 0.12) < 1e-9)
        // 100 kB: three doublings (115 520 bytes) hold it; 0.09 s less its 8 ms at the full rate.
        #expect(abs(CellCost.slowStartSeconds(100e3, usable: usable, link: l, hints: windowed) - (0.09 - 0.008)) < 1e-9)
        #expect(CellCost.slowStartSeconds(92e6, usable: usable, link: l, hints: CostHints()) == 0)
        // It is part of the bulk phase: a 4 MB transfer takes 0.12 s longer than its bytes.
        let payload = Payload(count: 1_000, size: 4_000)
        let plain = CellCost.bulkSeconds(payload: payload, link: l, hints: CostHints())
        #expect(abs(CellCost.bulkSeconds(payload: payload, link: l, hints: windowed) - plain - 0.12) < 1e-9)
    }

    /// Probes cost rttProbes round trips, more with loss.
    @Test func probesCostRoundTripsAndLosses() {
        let clean = CellCost.model(payload: nil, rttProbes: 100, link: link(rate: 300, loss: 0))
        let none = CellCost.model(payload: nil, rttProbes: 0, link: link(rate: 300, loss: 0))
        #expect(abs((clean - none) - 100 * (0.002 + CellCost.probeTurnaroundSeconds)) < 1e-9)
        let lossy = CellCost.model(payload: nil, rttProbes: 100, link: link(rate: 300, loss: 40))
        #expect(lossy > clean + 0.5, "100 probes at 40 % loss cost more: \(lossy) vs \(clean)")
    }

    /// Pipelined probes are all in flight at once: 1 000 of them over a 40 ms round trip
    /// cost one round trip plus their serialisation, not 1 000 round trips (40 s).
    @Test func pipelinedProbesCostAboutOneRoundTrip() throws {
        var l = link(rate: 50, loss: 0)
        l.delayMs = 20
        let none = CellCost.model(payload: nil, rttProbes: 0, link: l)
        let pingPong = CellCost.model(payload: nil, rttProbes: 1_000, link: l) - none
        let pipelined = CellCost.model(payload: nil, rttProbes: 1_000, link: l, rttMethod: .pipelined) - none
        #expect(abs(pingPong - 1_000 * (0.040 + CellCost.probeTurnaroundSeconds)) < 1e-9)
        // 0.0405 s + 1 000 x 104 B x 8 / 50 Mbit/s (16.6 ms) + 1 000 x 20 µs (20 ms).
        #expect(abs(pipelined - (0.0405 + 0.01664 + 0.02)) < 1e-9, "\(pipelined)")
        // At loss, a lost one costs a straggler wait of about a second, once.
        let lossy = CellCost.probeSeconds(1_000, method: .pipelined, link: link(rate: 50, loss: 10))
        #expect(lossy > 1 && lossy < 1.2, "\(lossy)")
        // The model of a matrix carries its method.
        let m = try parse(matrixText(transports: #"[{"plugin": "tcp", "label": "t"}]"#, extra: #""rttMethod": "pipelined", "rttProbes": 1000, "#))
        let model = CellCostModel(transports: m.transports, rttProbes: m.rttProbes, cellTimeoutSeconds: 60, registry: nil, rttMethod: m.rttMethod)
        let cell = try #require(m.cells().first)
        #expect(model.seconds(cell, link: l) < 1, "\(model.seconds(cell, link: l))")
    }

    /// `rttPayloads`: a cell left out costs no probe time, the listed ones what they did;
    /// the field study's 1 000 pipelined probes at 1 ms intervals cost about a second each.
    @Test func cellsWithoutProbesAreEstimatedWithoutThem() throws {
        let l = link(rate: 50, loss: 0)
        let keys = #""rttMethod": "pipelined", "rttProbes": 1000, "rttProbeIntervalMs": 1, "#
        let tcp = #"[{"plugin": "tcp", "label": "t"}]"#
        let all = try parse(matrixText(transports: tcp, counts: "[100, 1000]", extra: keys))
        let some = try parse(matrixText(transports: tcp, counts: "[100, 1000]", extra: keys + #""rttPayloads": {"counts": [100]}, "#))
        func model(_ m: Matrix) -> CellCostModel {
            CellCostModel(
                transports: m.transports, rttProbes: m.rttProbes, cellTimeoutSeconds: 60, registry: nil, rttMethod: m.rttMethod,
                rttPayloads: m.rttPayloads, rttProbeSpacingNanos: m.rttProbeSpacingNanos)
        }
        let before = all.cells().map { model(all).seconds($0, link: l) }
        let after = some.cells().map { model(some).seconds($0, link: l) }
        #expect(some.cells().map { $0.payload?.count } == [100, 1000])
        #expect(after[0] == before[0], "the probed cell is unchanged")
        let probes = CellCost.probeSeconds(1_000, method: .pipelined, link: l, spacingNanos: 1_000_000)
        // 999 x 1 ms between sends, plus one round trip (2 ms delay + turnaround).
        #expect(abs(probes - (0.999 + 0.0025)) < 1e-9, "\(probes)")
        #expect(abs((before[1] - after[1]) - probes) < 1e-9, "the skipped cell saves its probes: \(before[1]) -> \(after[1])")
        // The plan's estimate (validate, --dry-run, the ETA) follows.
        let options = RunOptions(matrixFile: "m.json", commandLine: [])
        let planAll = try RunPlan(matrix: all, options: options, linkModel: FakeLinkModel())
        let planSome = try RunPlan(matrix: some, options: options, linkModel: FakeLinkModel())
        #expect(
            planSome.estimatedSeconds() < planAll.estimatedSeconds() - probes * 0.99,
            "\(planAll.estimatedSeconds()) -> \(planSome.estimatedSeconds())")
    }

    /// A cell ends at its timeout: 100 000 x 16 384 B at 33 Mbit/s with 18 % loss would
    /// take eight minutes, but the cell is stopped at 60 s.
    @Test func aCellIsNeverEstimatedPastItsTimeout() throws {
        let m = try parse(matrixText(transports: #"[{"plugin": "tcp", "label": "t"}]"#, counts: "[100000]", sizes: "[16384]"))
        let cell = m.cells()[0]
        let model = CellCostModel(transports: m.transports, rttProbes: 10, cellTimeoutSeconds: 60, registry: nil)
        let uncapped = CellCost.model(payload: cell.payload, rttProbes: 10, link: link(rate: 33.3, loss: 18.2))
        #expect(uncapped > 480)
        #expect(model.seconds(cell, link: link(rate: 33.3, loss: 18.2)) == 60 + CellCost.setUpSeconds)
    }

    /// A past run's measured cells are estimated at what they took; the others at the
    /// model times the measured / modelled ratio.
    @Test func calibrationUsesMeasuredTimesAndScalesTheRest() throws {
        let text = matrixText(transports: #"[{"plugin": "tcp", "label": "a"}]"#, environments: #"["forest"]"#, counts: "[10, 20, 30]")
        var plan = try RunPlan(matrix: try parse(text), options: RunOptions(matrixFile: "m.json", commandLine: []), linkModel: FakeLinkModel())
        let cells = plan.cells
        let modelled = plan.estimates(of: cells)
        func record(_ c: Cell, _ s: Double) -> Record {
            var r = Fixtures.record(c.id, c.repetition)
            r.totalSeconds = s
            return r
        }
        let measured = [3 * modelled[0], 3 * modelled[1]]
        var foreign = Fixtures.record("not-of-this-matrix")
        foreign.totalSeconds = 99
        plan.calibrate(from: [record(cells[0], measured[0]), record(cells[1], measured[1]), foreign], source: "past")
        let calibrated = plan.estimates(of: cells)
        #expect(calibrated[0] == measured[0] && calibrated[1] == measured[1])
        #expect(abs(calibrated[2] - 3 * modelled[2]) < 1e-9)
        #expect(plan.calibration?.measured.count == 2)
        #expect(plan.estimateBasis.hasPrefix("measured in past for 2 cells"))
        // The shard deal ignores the calibration: it must not depend on the machine.
        let dealt = Double(plan.shardBalance(shards: 2).blockMillis.reduce(0, +)) / 1000
        #expect(abs(dealt - modelled.reduce(0, +)) < 0.01)
    }
    /// A transport's hints (`TransportPlugin.costHints`): its share of the rate slows the
    /// bulk phase; only a prober that waits for lost probes pays the straggler wait; an
    /// unpaced sender on a dropping queue is done after its own time and one queue's drain.
    @Test func costHintsChangeWhatTheTransportPays() {
        var l = link(rate: 100, loss: 0)
        let payload = Payload(count: 10_000, size: 9_216)
        let bytes = 10_000.0 * 9_216
        let full = CellCost.model(payload: payload, rttProbes: 0, link: l)
        let half = CellCost.model(payload: payload, rttProbes: 0, link: l, hints: CostHints(bulkRateShare: 0.5))
        #expect(abs((half - full) - bytes / (100e6 / 8)) < 1e-6, "half the rate: the wire time twice over")
        // 8.25 MB of queue at 100 Mbit/s drains in 0.66 s; the sender's own 10 000 messages take 0.15 s.
        l.queueBytes = 8_250_000
        let unpaced = CellCost.model(payload: payload, rttProbes: 0, link: l, hints: CostHints(endsWhenSenderIsDone: true))
        #expect(abs((full - unpaced) - (bytes - 8_250_000) / (100e6 / 8) + 0.15) < 1e-6, "\(full) \(unpaced)")
        l.queueBytes = nil
        #expect(
            CellCost.model(payload: payload, rttProbes: 0, link: l, hints: CostHints(endsWhenSenderIsDone: true)) == full,
            "a queue that holds the sender back: every byte")
        let lossy = link(rate: 50, loss: 10)
        let reliable = CellCost.model(payload: nil, rttProbes: 1_000, link: lossy, rttMethod: .sendLoop)
        let straggler = CellCost.model(payload: nil, rttProbes: 1_000, link: lossy, rttMethod: .sendLoop, hints: CostHints(waitsForLostProbes: true))
        #expect(straggler - reliable > 0.5 && straggler - reliable <= CellCost.pipelinedStragglerSeconds, "\(straggler - reliable)")
        // Loss recovery: at 20 % loss the 92.16 MB at 50 x 0.8 Mbit/s are 18.4 s of wire
        // time; lossRecovery 100 makes that 1 + 100 x 0.04 = 5 times as long. Nothing
        // without loss.
        let lossier = link(rate: 50, loss: 20)
        let plain = CellCost.model(payload: payload, rttProbes: 0, link: lossier)
        let recovering = CellCost.model(payload: payload, rttProbes: 0, link: lossier, hints: CostHints(lossRecovery: 100))
        #expect(abs((recovering - plain) - 4 * bytes * 8 / (50e6 * 0.8)) < 1e-6, "\(plain) \(recovering)")
        #expect(CellCost.model(payload: payload, rttProbes: 0, link: l, hints: CostHints(lossRecovery: 100)) == full)
    }
}
