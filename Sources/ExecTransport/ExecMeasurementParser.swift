import Foundation
import PeerBenchJSON
import PeerBenchPlugin

/// Turns the client's standard output (schema `peerbench.exec.measurement/1`,
/// docs/protocol/exec.md) into a `TransportMeasurement`, or says precisely what is wrong.
enum ExecMeasurementParser {
    static let schema = "peerbench.exec.measurement/1"
    static let keys = [
        "schema", "connect_ms", "rtt_ns", "probes_sent", "bulk_ns", "delivery", "rfc3550_jitter_ms",
        "status", "error", "extra",
    ]
    static let deliveryKeys = ["sent_messages", "received_messages", "sent_bytes", "received_bytes", "reordered", "duplicated"]

    /// The longest connection set-up a measurement may report, ms: a day.
    static let maxConnectMs = 86_400_000.0

    /// A problem with the output; the caller adds which command printed it.
    struct Problem: Error { var message: String }

    static func parse(_ stdout: String) throws(Problem) -> TransportMeasurement {
        let o = try measurementObject(stdout)
        var m = TransportMeasurement()
        if let c = try number(o, "connect_ms", min: 0) {
            // Bounded before the conversion: 1e300 ms would trap UInt64(_:) (issue 24).
            guard c <= maxConnectMs else { throw Problem(message: "\"connect_ms\" must be at most \(Int(maxConnectMs)) (a day), got \(c)") }
            m.connectNanos = UInt64((c * 1e6).rounded())
        }
        if let list = o["rtt_ns"], list != .null {
            guard let items = list.arrayValue else { throw Problem(message: "\"rtt_ns\" must be an array of integers (nanoseconds)") }
            m.rttNanos = try items.enumerated().map { (i, v) throws(Problem) in
                guard let n = v.intValue, n >= 0 else {
                    throw Problem(message: "\"rtt_ns\"[\(i)] must be a non-negative integer, got \(v.compactText)")
                }
                return UInt64(n)
            }
        }
        m.probesSent = try integer(o, "probes_sent")
        if let probes = m.probesSent, probes < m.rttNanos.count {
            throw Problem(message: "\"probes_sent\" (\(probes)) is less than the number of RTT samples (\(m.rttNanos.count))")
        }
        if let b = try integer(o, "bulk_ns") {
            guard b > 0 else { throw Problem(message: "\"bulk_ns\" must be positive, got \(b)") }
            m.bulkNanos = UInt64(b)
        }
        if let d = o["delivery"], d != .null { m.delivery = try delivery(d) }
        m.rfc3550JitterMs = try number(o, "rfc3550_jitter_ms", min: 0)
        if let s = o["status"], s != .null {
            switch s.stringValue {
            case "ok": m.status = .ok
            case "partial": m.status = .partial
            default: throw Problem(message: "\"status\" must be \"ok\" or \"partial\", got \(s.compactText) (exit non-zero to fail the cell)")
            }
        }
        if let e = o["error"], e != .null {
            guard let text = e.stringValue else { throw Problem(message: "\"error\" must be a string or null") }
            m.error = text
        }
        if let x = o["extra"], x != .null {
            guard let xo = x.objectValue else { throw Problem(message: "\"extra\" must be an object") }
            m.extra = xo
        }
        return m
    }

    /// The output as one JSON object with known keys only and, if it names one, this schema.
    private static func measurementObject(_ stdout: String) throws(Problem) -> JSONObject {
        let text = stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw Problem(message: "printed nothing on stdout (expected one measurement JSON object)") }
        let value: JSONValue
        do { value = try JSONParser.parse(text) } catch {
            throw Problem(message: "printed something that is not the measurement JSON (\(error)); stdout: \(text.firstLines(3))")
        }
        guard let o = value.objectValue else {
            throw Problem(message: "printed a JSON \(value.typeName), expected an object; stdout: \(text.firstLines(3))")
        }
        for k in o.keys where !keys.contains(k) {
            throw Problem(message: "printed an unknown key \"\(k)\"; known keys: \(keys.joined(separator: ", "))")
        }
        if let s = o["schema"], s != .null, s != .string(schema) {
            throw Problem(message: "printed schema \(s.compactText), expected \"\(schema)\"")
        }
        return o
    }

    /// The `delivery` object: the four counts required, reordered and duplicated optional.
    private static func delivery(_ d: JSONValue) throws(Problem) -> Delivery {
        guard let dobj = d.objectValue else { throw Problem(message: "\"delivery\" must be an object or null") }
        for k in dobj.keys where !deliveryKeys.contains(k) {
            throw Problem(message: "printed an unknown key \"delivery.\(k)\"; known keys: \(deliveryKeys.joined(separator: ", "))")
        }
        func req(_ k: String) throws(Problem) -> Int {
            guard let v = try integer(dobj, k, prefix: "delivery.") else { throw Problem(message: "\"delivery.\(k)\" is required") }
            return v
        }
        return Delivery(
            sentMessages: try req("sent_messages"), receivedMessages: try req("received_messages"),
            sentBytes: try req("sent_bytes"), receivedBytes: try req("received_bytes"),
            reordered: try integer(dobj, "reordered", prefix: "delivery.") ?? 0,
            duplicated: try integer(dobj, "duplicated", prefix: "delivery.") ?? 0)
    }

    private static func integer(_ o: JSONObject, _ key: String, prefix: String = "") throws(Problem) -> Int? {
        guard let v = o[key], v != .null else { return nil }
        guard let i = v.intValue, i >= 0 else { throw Problem(message: "\"\(prefix)\(key)\" must be a non-negative integer, got \(v.compactText)") }
        return i
    }

    private static func number(_ o: JSONObject, _ key: String, min: Double) throws(Problem) -> Double? {
        guard let v = o[key], v != .null else { return nil }
        guard let x = v.doubleValue, x >= min, x.isFinite else {
            throw Problem(message: "\"\(key)\" must be a number ≥ \(min), got \(v.compactText)")
        }
        return x
    }
}
