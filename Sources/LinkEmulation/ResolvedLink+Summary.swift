public import PeerBenchPlugin

extension ResolvedLink {
    /// One line for `peerbench validate` / `list`: distance, RSSI, SNR, MCS, rates,
    /// delay and loss, e.g.
    /// `forest @ 10 m: RSSI -71.4 dBm, SNR 16.6 dB, MCS 2, PHY 175.6 Mbit/s, rate 99.9 Mbit/s, delay 1 ms +- 0.3, loss 0.02 %`.
    public var summary: String {
        func f(_ v: Double?, _ digits: Int = 1) -> String { v.map { String(format: "%.\(digits)f", $0) } ?? "-" }
        let distance = distanceMeters.map { distanceLabel == "max" ? "max (\(f($0, 0)) m)" : "\(f($0, 0)) m" } ?? distanceLabel
        var parts: [String] = []
        if rssiDbm != nil {
            parts += ["RSSI \(f(rssiDbm)) dBm", "SNR \(f(snrDb)) dB", "MCS \(mcs.map(String.init) ?? "none")", "PHY \(f(phyRateMbps)) Mbit/s"]
        }
        parts.append("rate \(rateMbps.map { "\(f($0)) Mbit/s" } ?? "unlimited")")
        parts.append("delay \(f(delayMs, 2)) ms +- \(f(jitterMs ?? 0, 2))")
        parts.append("loss \(f(lossPercent ?? 0, 3)) %")
        parts.append("MTU \(mtu.map(String.init) ?? "default")")
        if !connected { parts.append("NOT CONNECTED") }
        return "\(environment) @ \(distance): " + parts.joined(separator: ", ")
    }
}
