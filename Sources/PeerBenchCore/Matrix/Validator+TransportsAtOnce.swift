import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchTestbed

extension Validator {
    /// The matrix's `"transportsAtOnce"` (false when absent). Refused where the
    /// transports of a block cannot share one link: fewer than two transports (nothing
    /// to share with), `"order": "sequential"` (it pulls a block's transports apart), or
    /// transports whose Wi-Fi performance modes differ (each mode emulates a different
    /// channel schedule, and one link has one).
    mutating func transportsAtOnce(_ v: JSONValue?, _ path: JSONPath, transports: [TransportSpec], order: JSONValue?) -> Bool {
        guard let v else { return false }
        guard case .bool(let on) = v else {
            fail(path, "expected true or false, got \(v.compactText)")
            return false
        }
        guard on else { return false }
        if transports.count < 2 {
            fail(path, "needs at least two transports to run at once over the shared link; the matrix has \(transports.count)")
        }
        if order?.stringValue == CellOrder.sequential.rawValue {
            fail(
                path,
                "cannot be combined with \"order\": \"sequential\" (it runs a transport's cells back to back, not a block's transports together); use \"interleaved\" or \"shuffled\""
            )
        }
        let modes = Set(transports.map(\.effectiveWifi.performanceMode))
        if modes.count > 1 {
            let list = transports.map { "\($0.label): \($0.effectiveWifi.performanceMode)" }.joined(separator: ", ")
            fail(path, "the transports share one link, so they need the same Wi-Fi performanceMode; they have \(list)")
        }
        return true
    }
}
