/// Where a parameter's value comes from, as LINK-MODEL.md tags it.
public enum Provenance: String, Sendable {
    /// Documented or specified (a standard, a specification, source code).
    case documented = "D"
    /// Measured and published.
    case measured = "M"
    /// An assumption: a reasonable engineering choice, overridable in matrix.json.
    case assumed = "A"
    /// Fitted to the field study's calibration set (TCP, UDP's transfers) (`scripts/fit-field-study.py`).
    case fitted = "F"
}

/// The radio surroundings of one environment: everything that turns a distance into
/// received power, noise and channel behaviour. Every field can be overridden by an
/// inline radio profile in matrix.json (see `RadioProfile`).
public struct RadioEnvironment: Sendable, Equatable {
    public var name: String
    /// Log-distance path-loss exponent n (up to the breakpoint, if any).
    public var pathLossExponent: Double
    /// Two-ray breakpoint distance, metres; nil = no breakpoint.
    public var breakpointMeters: Double?
    /// Path-loss exponent beyond the breakpoint.
    public var beyondBreakpointExponent: Double
    /// Adds Weissberger's foliage loss (trees along the whole path).
    public var foliage: Bool
    /// Log-normal shadowing standard deviation, dB.
    public var shadowingSigmaDb: Double
    /// Shadowing correlation time, milliseconds (a few hundred ms at walking pace).
    public var shadowingCorrelationMs: Double
    /// Interference above the thermal noise floor, dB.
    public var interferenceDb: Double
    /// Body-blocking episodes per second (people crossing the path).
    public var blockingPerSecond: Double
    /// Mean length of one episode, milliseconds.
    public var blockingMeanMs: Double
    /// Extra loss during an episode, dB (uniform in this range).
    public var blockingDepthDb: ClosedRange<Double>
    /// AWDL duty cycle.
    public var schedule: ChannelSchedule
    /// Transmit power, dBm.
    public var txPowerDbm: Double
    /// Body and antenna loss, dB (both phones together).
    public var bodyLossDb: Double
    /// Receiver noise figure, dB.
    public var noiseFigureDb: Double
    /// One-way MAC + propagation delay, milliseconds.
    public var delayMs: Double
    /// Standard deviation of the per-packet delay, milliseconds.
    public var jitterMs: Double
    /// Mean length of a loss burst, packets (Gilbert-Elliott).
    public var burstLossPackets: Double
    /// Share of the MCS's usable rate (PHY x MAC efficiency) that two phones' AWDL link
    /// carries for one transport flow [F: docs/FIELD-STUDY.md, scripts/fit-field-study.py].
    public var rateFactor: Double = RadioEnvironment.fittedRateFactor
    /// SNR (dB) rate adaptation keeps above an MCS's threshold before it uses that MCS
    /// (`MCSTable.select`); MCS 0 needs none, so the reach does not depend on it.
    public var rateAdaptationMarginDb: Double = MCSTable.adaptationMarginDb
    /// The transmit queue, per direction.
    public var queue: QueueLimits
    /// The most MPDUs one aggregate holds (`FrameAggregation.maxMPDUs`): 64 is 802.11ac's
    /// block-ack window, 1 one frame per channel access.
    public var aggregateMPDUs = FieldStudyCalibration.aggregateMPDUs
    /// False: a full transmit queue drops (the phones' driver queue); true: senders are
    /// held back by their sockets (the sender-side shaper).
    public var backpressure = false
    /// Provenance of each parameter (by the profile key that overrides it), for docs and `list`.
    public var sources: [String: (Provenance, String)]

    public static func == (a: Self, b: Self) -> Bool {
        a.name == b.name && a.pathLossExponent == b.pathLossExponent && a.breakpointMeters == b.breakpointMeters
            && a.beyondBreakpointExponent == b.beyondBreakpointExponent && a.foliage == b.foliage
            && a.shadowingSigmaDb == b.shadowingSigmaDb && a.shadowingCorrelationMs == b.shadowingCorrelationMs
            && a.interferenceDb == b.interferenceDb && a.blockingPerSecond == b.blockingPerSecond
            && a.blockingMeanMs == b.blockingMeanMs && a.blockingDepthDb == b.blockingDepthDb
            && a.schedule == b.schedule && a.txPowerDbm == b.txPowerDbm && a.bodyLossDb == b.bodyLossDb
            && a.noiseFigureDb == b.noiseFigureDb && a.delayMs == b.delayMs && a.jitterMs == b.jitterMs
            && a.burstLossPackets == b.burstLossPackets && a.queue == b.queue && a.rateFactor == b.rateFactor
            && a.rateAdaptationMarginDb == b.rateAdaptationMarginDb
            && a.aggregateMPDUs == b.aggregateMPDUs && a.backpressure == b.backpressure
    }
}

extension RadioEnvironment {
    /// Values shared by every built-in environment (LINK-MODEL.md sections 2-4).
    static let common: [String: (Provenance, String)] = [
        "txPowerDbm": (.assumed, "15 dBm, a phone's 5 GHz transmit power (LINK-MODEL.md 3)"),
        "bodyLossDb": (
            .fitted,
            "body, hand, antenna and implementation loss of both phones, fitted to the TCP and UDP transfers per place x distance (scripts/fit-field-study.py; LINK-MODEL.md 3)"
        ),
        "noiseFigureDb": (.documented, "noise floor -174 dBm/Hz + 10 log10(80 MHz) + 7 dB NF = -88 dBm (LINK-MODEL.md 3)"),
        "shadowingCorrelationMs": (.assumed, "time-correlated shadowing, a few hundred ms at walking pace (LINK-MODEL.md 3)"),
        "awdl": (
            .assumed,
            "bulk: frames leave from the start of a 16 TU availability window unless they queue behind a transmission (window length D: owl sync.c/channel.h; mechanism A)"
        ),
        "awdlOffSlots": (
            .fitted,
            "0 of 16 slots of 64 TU off channel: the field study's TCP RTT sd (9-12 ms) leaves no room for 65.5 ms excursions (docs/FIELD-STUDY.md)"
        ),
        "rateFactor": (
            .fitted,
            "share of the PHY rate the pair's frames get while on channel (the radio's other duties, rate adaptation below the SNR's MCS), fitted to TCP and UDP transfers together (scripts/fit-field-study.py)"
        ),
        "rateAdaptationMarginDb": (
            .assumed,
            "rate adaptation uses an MCS once the SNR clears its threshold by 1 dB: Minstrel-style controllers settle one step below the edge (LINK-MODEL.md 3)"
        ),
        "aggregateMPDUs": (
            .fitted,
            "MPDUs per A-MPDU on the phones' AWDL link (802.11ac allows 64 [D]), fitted to the TCP and UDP transfers together (scripts/fit-field-study.py); air time per aggregate: channel access + preamble + SIFS + block ack, per MPDU 52 bytes [D] (LINK-MODEL.md 4)"
        ),
        "queueOverflow": (
            .measured,
            "drop: long unpaced UDP transfers on the phones lost 24-89 % of their datagrams (field-study-2025/udp-transfer.csv), so the phones' queue overflowed rather than holding the sender back"
        ),
        "awdlWindowMiss": (
            .fitted, "probability that a frame misses its availability window, fitted per place to TCP RTT (scripts/fit-field-study.py)"
        ),
        "delayMs": (.measured, "about 1 ms one way: 2.06 ms RTT over Wi-Fi without AWDL channel switching (moonlight-qt PR #1974)"),
        "jitterMs": (.assumed, "0.3 ms: RTT sd 0.65 ms without channel switching (moonlight-qt PR #1974)"),
        "burstLossPackets": (.assumed, "loss near the cliff comes in bursts of about 3 packets (retry exhaustion during a fade)"),
        "queuePackets": (.fitted, "the phones' transmit queue in packets, fitted to UDP transfer loss (scripts/fit-field-study.py)"),
        "queueBytes": (.fitted, "the phones' transmit queue in bytes, fitted to UDP transfer loss (scripts/fit-field-study.py)"),
        "breakpointMeters": (.documented, "no breakpoint"),
        "beyondBreakpointExponent": (.documented, "no breakpoint"),
        "foliage": (.documented, "no foliage"),
        "blockingPerSecond": (.assumed, "no body blocking"),
        "blockingMeanMs": (.assumed, "no body blocking"),
        "blockingDepthDb": (.assumed, "10-20 dB while a body blocks the path (LINK-MODEL.md 3)"),
    ]

    static func base(_ name: String) -> RadioEnvironment {
        RadioEnvironment(
            name: name, pathLossExponent: 2.0, breakpointMeters: nil, beyondBreakpointExponent: 2.0, foliage: false,
            shadowingSigmaDb: 3, shadowingCorrelationMs: 300, interferenceDb: 0,
            blockingPerSecond: 0, blockingMeanMs: 0, blockingDepthDb: 10...20,
            schedule: .bulk, txPowerDbm: 15, bodyLossDb: FieldStudyCalibration.bodyLossDb, noiseFigureDb: 7, delayMs: 1.0, jitterMs: 0.3,
            burstLossPackets: 3, queue: FieldStudyCalibration.queue, sources: common)
    }

    /// Open field: free-space propagation up to the two-ray breakpoint, fourth power beyond.
    public static let freeField: RadioEnvironment = {
        var e = base("free-field")
        e.fitWindowMiss("a hot phone in direct sun (the author suspects heating) skipping windows: no radio model predicts thermal throttling")
        e.pathLossExponent = 2.0
        e.breakpointMeters = 100
        e.beyondBreakpointExponent = 4.0
        e.shadowingSigmaDb = 3
        e.interferenceDb = 0
        e.sources["pathLossExponent"] = (.documented, "free space n = 2 up to the two-ray breakpoint")
        e.sources["breakpointMeters"] = (.documented, "two-ray breakpoint 4 h1 h2 / lambda ~ 100 m at 5.2 GHz, phones held ~1.2 m high")
        e.sources["beyondBreakpointExponent"] = (.documented, "two-ray model: n = 4 beyond the breakpoint")
        e.sources["shadowingSigmaDb"] = (.assumed, "3 dB, open terrain (LINK-MODEL.md 3)")
        e.sources["interferenceDb"] = (.measured, "0 dB: rural RF exposure is low, mean 0.19 V/m (Loizeau et al. 2023)")
        return e
    }()

    /// Forest: free-space exponent plus Weissberger's foliage loss.
    public static let forest: RadioEnvironment = {
        var e = base("forest")
        e.fitWindowMiss("exchanges retried a window later under foliage loss")
        e.pathLossExponent = 2.0
        e.foliage = true
        e.shadowingSigmaDb = 7
        e.interferenceDb = 0
        e.sources["pathLossExponent"] = (.documented, "n = 2 plus foliage loss")
        e.sources["foliage"] = (.documented, "Weissberger: 0.45 f^0.284 d (d <= 14 m), 1.33 f^0.284 d^0.588 (14-400 m), f in GHz")
        e.sources["shadowingSigmaDb"] = (.assumed, "7 dB, trunks and foliage")
        e.sources["interferenceDb"] = (.assumed, "0 dB: little RF activity in a forest")
        return e
    }()

    /// Inner city street: ITU-R P.1411 line-of-sight path loss, pedestrians crossing the path.
    public static let innerCity: RadioEnvironment = {
        var e = base("inner-city")
        e.fitWindowMiss("a busy band and people walking between the phones")
        e.pathLossExponent = 2.12
        e.shadowingSigmaDb = 5.06
        e.interferenceDb = 6
        e.blockingPerSecond = 0.1
        e.blockingMeanMs = 500
        e.sources["pathLossExponent"] = (.documented, "n = 2.12, ITU-R P.1411-10 Table 4, urban LoS")
        e.sources["shadowingSigmaDb"] = (.documented, "5.06 dB, ITU-R P.1411-10 Table 4, urban LoS")
        e.sources["interferenceDb"] = (.assumed, "+6 dB: busy 5 GHz band (LINK-MODEL.md 3)")
        e.sources["blockingPerSecond"] = (.assumed, "a pedestrian crosses the path every 10 s (NLoS episodes); blocked ~5 % of the time")
        e.sources["blockingMeanMs"] = (.assumed, "0.5 s per crossing: a 0.5-0.7 m body at walking pace (1.4 m/s)")
        return e
    }()

    /// Underground station: indoor-like propagation, dense RF, crowds blocking the path.
    public static let underground: RadioEnvironment = {
        var e = base("underground")
        e.fitWindowMiss("metal-clad halls: the best place of the field day")
        e.pathLossExponent = 1.8
        e.shadowingSigmaDb = 4
        e.interferenceDb = 2.3
        e.blockingPerSecond = 0.2
        e.blockingMeanMs = 500
        e.sources["pathLossExponent"] = (
            .assumed,
            "n = 1.8: metal-clad halls and tunnels guide waves; exponents below 2 are published for corridors and tunnels (ITU-R P.1238 corridor figures [D], subway-tunnel measurements [M]); the field study's best place [M]"
        )
        e.sources["shadowingSigmaDb"] = (.assumed, "4 dB (ITU-R P.1238 gives up to 10)")
        e.sources["interferenceDb"] = (
            .assumed,
            "+2.3 dB: RF exposure at train stations 0.35 V/m vs 0.27 outdoors (Loizeau et al. 2023 [M]) is 20 log10(0.35/0.27) dB more power, taken as in-band [A]"
        )
        e.sources["blockingPerSecond"] = (.assumed, "crowds: a body in the path every 5 s; blocked ~9 % of the time")
        e.sources["blockingMeanMs"] = (.assumed, "0.5 s per episode (people walking through the path)")
        return e
    }()

    /// Sets the fitted window-miss probability of this environment (0 when the fit has
    /// none for it), tagged [F] with what it stands for physically.
    mutating func fitWindowMiss(_ meaning: String) {
        let miss = FieldStudyCalibration.windowMiss[name] ?? 0
        schedule = .awdl(offSlots: ChannelSchedule.defaultOffSlots, windowMiss: miss)
        sources["awdlWindowMiss"] = (.fitted, "\(miss): \(meaning); fitted to the place's TCP RTT (scripts/fit-field-study.py)")
    }

    /// The fitted rate factor (`FieldStudyCalibration.rateFactor`).
    static var fittedRateFactor: Double { FieldStudyCalibration.rateFactor }

    /// The four built-in environments of the field study, in display order.
    public static let builtIns: [RadioEnvironment] = [underground, innerCity, freeField, forest]
}
