import PeerBenchJSON
import PeerBenchPlugin

/// An estimate of each end's radio energy for one cell — a model, not a measurement:
/// no power meter is involved anywhere.
///
/// The radio is awake for the performance mode's duty cycle of the cell's time (the
/// share of on-channel slots: 14/16 in `bulk`, where the off-channel slots are spent
/// dozing, all of it in `realtime`), and at least as long as its frames take on the
/// air. While awake it transmits its own frames, receives the peer's, and listens the
/// rest of the time; otherwise it dozes:
///
///     E = P_tx t_tx + P_rx t_rx + P_listen (t_awake - t_tx - t_rx) + P_doze (T - t_awake)
///
/// with t_tx and t_rx the air time of the bytes each end sent and received (the
/// emulator's per-direction byte counters at the link's PHY rate, or its rate when the
/// environment has no PHY rate). The power figures [D] are the Wi-Fi currents two
/// Google phones' Android power profiles give, times their Wi-Fi supply voltage: the
/// Pixel 4 XL's for transmit, receive and idle listening, the Pixel XL's "Wi-Fi on but
/// idle" for doze (docs/LINK-MODEL.md section 9 has the values and where they are).
public struct EnergyModel: Sendable, Equatable {
    /// Power while transmitting, milliwatts [D]: Pixel 4 XL, 351 mA at 3.7 V.
    var transmitMw = 1_298.7
    /// Power while receiving a frame, milliwatts [D]: Pixel 4 XL, 125 mA at 3.7 V.
    var receiveMw = 462.5
    /// Power while awake and listening, milliwatts [D]: Pixel 4 XL idle receive, 82 mA at 3.7 V.
    var listenMw = 303.4
    /// Power while dozing, milliwatts [D]: Pixel XL, Wi-Fi on but idle, 2 mA at 3.8 V.
    var dozeMw = 7.6

    public init() {}

    /// The built-in model.
    public static let standard = EnergyModel()

    /// The model in words, for `peerbench list`.
    public func describe() -> [String] {
        func f(_ x: Double) -> String { JSONValue.format(x) }
        return [
            "Energy (link.radio_on_fraction, link.energy_mj): an ESTIMATE from a radio power model, not a measurement:",
            "  transmit \(f(transmitMw)) mW, receive \(f(receiveMw)) mW, awake listening \(f(listenMw)) mW, doze \(f(dozeMw)) mW [D: Android power profiles of Pixel 4 XL and Pixel XL];",
            "  awake for the performance mode's duty cycle (bulk: the on-channel slots, 14 of 16; realtime: always) and at least",
            "  for the air time of the bytes each end sent and received (the emulator's counters at the PHY rate); docs/LINK-MODEL.md section 9",
        ]
    }

    /// The share of time the radio is awake in `mode` on a link without its own channel
    /// model: AWDL's bulk schedule (14 of 16 slots on channel) or always [A].
    public static func nominalDutyCycle(_ mode: PerformanceMode) -> Double {
        mode == .realtime ? 1 : 14.0 / 16.0
    }

    /// One end's figures.
    public struct Estimate: Sendable, Equatable {
        public var radioOnFraction: Double
        public var energyMj: Double
    }

    /// The estimate for an end that sent `sentBytes` and received `receivedBytes` at
    /// `airRateMbps` during `seconds`, awake `dutyCycle` of the time.
    public func estimate(seconds: Double, dutyCycle: Double, airRateMbps: Double, sentBytes: Int, receivedBytes: Int) -> Estimate {
        let tx = Double(sentBytes) * 8 / (airRateMbps * 1e6), rx = Double(receivedBytes) * 8 / (airRateMbps * 1e6)
        let awake = min(seconds, max(dutyCycle * seconds, tx + rx))
        let listen = max(0, awake - tx - rx)
        let mj = transmitMw * tx + receiveMw * rx + listenMw * listen + dozeMw * max(0, seconds - awake)
        return Estimate(radioOnFraction: seconds > 0 ? awake / seconds : 0, energyMj: mj)
    }
}
