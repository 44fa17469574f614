/// The link parameters fitted to the field study's calibration set, all TCP and UDP's transfers (tag **[F]**,
/// docs/FIELD-STUDY.md). `scripts/fit-field-study.py` reproduces them: it runs the
/// emulated link with candidate values through `peerbench run` and keeps the ones
/// closest to the calibration set (`data/field-study-2025/`). The study's UDP round trips
/// and QUIC measurements are never used here: they are the validation set.
///
/// Change a value only by rerunning the script (`--write` rewrites this file).
public enum FieldStudyCalibration {
    /// Body, hand, antenna and implementation loss of both phones together, dB: what
    /// takes the phones' rate down with distance, fitted to the TCP and UDP transfers per
    /// place x distance. The grid stops at 11 dB: beyond it the underground station no
    /// longer reaches the 35 m its author reports, nor the forest its 10 m.
    public static let bodyLossDb: Double = 11

    /// Share of the PHY rate the pair's frames get while on channel, fitted to the TCP and
    /// UDP transfers together (the MAC's own overhead is charged frame by frame).
    public static let rateFactor = 0.5

    /// MPDUs per aggregate on the phones' link, fitted to the TCP and UDP transfers together.
    public static let aggregateMPDUs = 6

    /// The phones' transmit queue per direction (it drops when full), fitted to the UDP
    /// transfers' loss.
    public static let queue = QueueLimits(packets: 5_500, bytes: 8_250_000)

    /// Probability that a frame misses the availability window it waits for, per
    /// environment, fitted to each place's TCP round trips (median of the tests' mean
    /// RTT and of their standard deviation).
    public static let windowMiss: [String: Double] = [
        "underground": 0.03,
        "inner-city": 0.03,
        "free-field": 0.0,
        "forest": 0.03,
    ]
}
