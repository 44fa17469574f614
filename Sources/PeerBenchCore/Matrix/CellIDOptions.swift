import PeerBenchJSON
import PeerBenchPlugin

/// The options a cell id hashes (docs/RECORDS.md, "Cell ids"): what the matrix writes,
/// not what a plugin's defaults happen to be in this version.
///
/// The id used to hash a transport's effective options, defaults included, so an
/// option added to a plugin (4924712: tcp's `congestionControl`, `null` unless
/// written) moved every id of that plugin. The rule now: each built-in plugin has a frozen
/// base, its effective options as 76d47e4 recorded them for an entry without
/// `options` (the ids users hold); an option of the base the matrix writes takes its
/// written (effective) value, one it leaves out keeps the base's value, and an option
/// not in the base joins only when written. So a plugin can gain options and change
/// defaults without moving an id; a written option does move it. A plugin without a
/// base (every plugin added after 76d47e4) hashes its written options only.
///
/// The base is history: never edit it. `Tests/PeerBenchCLITests/Golden/cell-ids.json`
/// pins the ids of every built-in matrix and test fixture.
enum CellIDOptions {
    /// A plugin's base: its options as 76d47e4 recorded them, in the order it read them.
    /// `asResolved` keys defaulted to a value found at run time (quic's certificate
    /// files: the bundled `certs/` directory's absolute path, or `PEERBENCH_CERTS`),
    /// which 76d47e4 hashed as found: they keep the value as resolved now, so the id of
    /// a quic cell depends on where its certificates are, as it did at 76d47e4.
    struct Base {
        var frozen: JSONObject
        var asResolved: Set<String> = []
    }

    /// The bases of the built-in plugins, from a 76d47e4 build (`run --link none` of an
    /// entry without options per plugin, its records' `transport.options`).
    static let bases: [String: Base] = {
        func object(_ text: String) -> JSONObject {
            // The literals below are valid JSON objects; a typo is a bug caught by every test.
            guard case .object(let o)? = try? JSONParser.parse(text) else { preconditionFailure("bad cell id base \(text)") }
            return o
        }
        let certs = ["caFile", "certFile", "keyFile", "clientCertFile", "clientKeyFile"]
        return [
            "tcp": Base(frozen: object(#"{"noDelay":false,"keepAlive":{"enabled":true,"idleSeconds":2,"intervalSeconds":1,"count":5}}"#)),
            "udp": Base(frozen: object(#"{"rateMbps":null,"probeTimeoutMs":1000}"#)),
            "quic": Base(
                frozen: object(
                    #"{"streams":"single","congestionControl":"cubic","maxStreamWindow":16777216,"maxWindow":25165824,"handshakeTimeoutSeconds":30,"idleTimeoutSeconds":30,"caFile":null,"certFile":null,"keyFile":null,"clientCertFile":null,"clientKeyFile":null,"serverName":null,"mutualTLS":false}"#
                ),
                asResolved: Set(certs)),
            "tls": Base(
                frozen: object(
                    #"{"noDelay":false,"psk":null,"pskIdentity":"peerbench","caFile":null,"certFile":null,"keyFile":null,"serverName":null}"#)),
            "uwb": Base(
                frozen: object(
                    #"{"updateRateHz":20,"durationSeconds":5,"tokenChannel":"message","peer":"phone","bearingDegrees":0,"chip":"first","gattConnectionIntervalMs":30,"removalTimeoutSeconds":2}"#
                )),
            "exec": Base(frozen: object(#"{"server":null,"client":null,"workingDirectory":null,"config":null,"serverExitGraceSeconds":5}"#)),
        ]
    }()

    /// The options `plugin`'s cell id hashes, from the entry's `written` options and the
    /// `effective` ones the plugin read.
    static func of(plugin: String, written: JSONValue?, effective: JSONValue) -> JSONValue {
        let base = bases[plugin] ?? Base(frozen: JSONObject())
        return .object(
            merge(
                base.frozen, asResolved: base.asResolved, written: written?.objectValue ?? JSONObject(),
                effective: effective.objectValue ?? JSONObject()))
    }

    /// The base's keys in its order (each written one at its effective value, each
    /// resolved one as resolved now), the written keys the base lacks (in the order the
    /// plugin read them) after its scalars and before its nested objects, as 76d47e4's
    /// options reader ordered them (a nested object last). A written object the base has
    /// as an object merges key by key.
    static func merge(_ base: JSONObject, asResolved: Set<String> = [], written: JSONObject, effective: JSONObject) -> JSONObject {
        func isWritten(_ key: String) -> Bool { written[key].map { $0 != .null } ?? false }
        func isObject(_ v: JSONValue) -> Bool { v.objectValue != nil }
        var out = JSONObject()
        func put(base m: JSONObject.Member) {
            guard isWritten(m.key) || asResolved.contains(m.key) else {
                out[m.key] = m.value
                return
            }
            let value = effective[m.key] ?? written[m.key] ?? m.value
            if case .object(let b) = m.value, case .object(let w)? = written[m.key], case .object(let e) = value {
                out[m.key] = .object(merge(b, written: w, effective: e))
            } else {
                out[m.key] = value
            }
        }
        for m in base where !isObject(m.value) { put(base: m) }
        for m in effective where base[m.key] == nil && isWritten(m.key) {
            if case .object(let w)? = written[m.key], case .object(let e) = m.value {
                out[m.key] = .object(merge(JSONObject(), written: w, effective: e))
            } else {
                out[m.key] = m.value
            }
        }
        for m in base where isObject(m.value) { put(base: m) }
        return out
    }
}
