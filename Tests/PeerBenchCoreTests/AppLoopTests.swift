import Foundation
import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchTestbed
import PeerBenchWorkloads
import Testing

/// The application's loops (matrix key `appLoop`): what the send schedule and the
/// receive loop decide, how the matrix spells them, what the worker and the estimate
/// carry. The plugins' use of them over real sockets: `AppLoopPluginTests`.
@Suite struct AppLoopTests {
    /// The receiving app takes each message one cost after the one before, never before
    /// it arrived, and says how many waited for it and how long.
    @Test func takesOneMessagePerCostNeverBeforeItArrives() throws {
        var app = try #require(AppReceiveLoop(perMessageNanos: 35_000))
        // Ten messages that arrive together at t = 1 ms are taken 35 µs apart.
        let taken = (0..<10).map { _ in app.take(arrivedAt: 1_000_000) }
        #expect(taken == (0..<10).map { 1_000_000 + UInt64($0) * 35_000 })
        #expect(app.heldMessages == 9)
        #expect(app.heldNanos == (1...9).reduce(0) { $0 + UInt64($1) * 35_000 })
        #expect(app.readyAt == 1_350_000)
        // A message that arrives after the app is free is taken when it arrives.
        #expect(app.take(arrivedAt: 2_000_000) == 2_000_000)
        #expect(app.heldMessages == 9)
        #expect(AppReceiveLoop(perMessageNanos: 0) == nil)
        #expect(AppReceiveLoop(AppLoop(sendNanos: 5_000)) == nil, "no receive cost: no loop")
    }

    /// The send schedule is absolute: message i is due at start + i x cost, so a late
    /// sender catches up and never runs ahead.
    @Test func sendScheduleIsAbsolute() throws {
        let s = try #require(MessageSchedule(AppLoop(sendNanos: 25_000), start: 10_000_000))
        #expect(s.due(0) == 10_000_000)
        #expect(s.due(400) == 20_000_000)
        #expect(s.dueCount(at: 9_999_999) == 0)
        #expect(s.dueCount(at: 10_000_000) == 1)
        #expect(s.dueCount(at: 20_000_000) == 401)
        #expect(MessageSchedule(AppLoop(receiveNanos: 5_000), start: 0) == nil, "no send cost: no schedule")
    }

    @Test func matrixReadsTheAppLoopInMicroseconds() throws {
        let m = try parse(matrixText(extra: #""appLoop": {"sendMicros": 17.5, "receiveMicros": 35}, "#))
        #expect(m.appLoop == AppLoop(sendNanos: 17_500, receiveNanos: 35_000))
        #expect(try parse(matrixText()).appLoop == .none)
        #expect(try parse(matrixText(extra: #""appLoop": {"receiveMicros": 40}, "#)).appLoop == AppLoop(receiveNanos: 40_000))
    }

    @Test func badAppLoopsNameTheirJSONPath() {
        let unknown = problems(matrixText(extra: #""appLoop": {"sendMicros": 10, "recieveMicros": 35}, "#))
        #expect(unknown.map(\.path) == ["$.appLoop.recieveMicros"], "\(unknown)")
        let negative = problems(matrixText(extra: #""appLoop": {"receiveMicros": -1}, "#))
        #expect(negative.map(\.path) == ["$.appLoop.receiveMicros"])
        #expect(negative.first?.message.contains("0...10000") == true, "\(negative)")
        let tooSlow = problems(matrixText(extra: #""appLoop": {"sendMicros": 20000}, "#))
        #expect(tooSlow.map(\.path) == ["$.appLoop.sendMicros"])
        let notAnObject = problems(matrixText(extra: #""appLoop": 35, "#))
        #expect(notAnObject.map(\.path) == ["$.appLoop"])
    }

    /// A worker process and a remote peer get the costs with the rest of the cell.
    @Test func cellSeedCarriesTheAppLoop() throws {
        var seed = CellContextSeed(cellID: "c", repetition: 1, seed: 7, payload: Payload(count: 10, size: 128), rttProbes: 1)
        seed.appLoop = AppLoop(sendNanos: 17_500, receiveNanos: 35_000)
        let back = try JSONDecoder().decode(CellContextSeed.self, from: JSONEncoder().encode(seed))
        #expect(back.appLoop == seed.appLoop)
        // Without one nothing new is on the wire, and a request from before reads as none.
        let plain = CellContextSeed(cellID: "c", repetition: 1, seed: 7, payload: nil, rttProbes: 1)
        let text = String(decoding: try JSONEncoder().encode(plain), as: UTF8.self)
        #expect(!text.contains("app_loop"), "\(text)")
        #expect(try JSONDecoder().decode(CellContextSeed.self, from: Data(text.utf8)).appLoop == .none)
    }

    /// A message can go no faster than the slower end's time per message: 10 000 x 128 B
    /// at 35 µs a message take 0.35 s however fast the link is.
    @Test func estimateChargesTheSlowerEnd() {
        var link = ResolvedLink(environment: "lab", distanceMeters: nil, distanceLabel: "1")
        link.delayMs = 1
        link.rateMbps = 1_000
        let payload = Payload(count: 10_000, size: 128)
        let none = CellCost.model(payload: payload, rttProbes: 0, link: link)
        let app = CellCost.model(payload: payload, rttProbes: 0, link: link, appLoop: AppLoop(sendNanos: 17_500, receiveNanos: 35_000))
        let wire = 10_000.0 * 128 * 8 / 1e9
        #expect(abs((app - none) - (0.35 - wire)) < 1e-9, "\(app - none)")
        let probes = CellCost.model(payload: nil, rttProbes: 1_000, link: link, rttMethod: .sendLoop, appLoop: AppLoop(receiveNanos: 35_000))
        let noAppProbes = CellCost.model(payload: nil, rttProbes: 1_000, link: link, rttMethod: .sendLoop)
        #expect(abs((probes - noAppProbes) - 0.035) < 1e-9)
    }

    @Test func recordsSayWhatTheAppCost() throws {
        #expect(AppLoop.none.extra == nil)
        let extra = try #require(AppLoop(sendNanos: 17_500, receiveNanos: 35_000).extra)
        #expect(extra.compactText == #"{"receive_us":35,"send_us":17.5}"# || extra.compactText == #"{"send_us":17.5,"receive_us":35}"#)
    }
}
