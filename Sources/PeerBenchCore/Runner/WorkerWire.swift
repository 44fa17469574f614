import Foundation

/// The messages between the runner and its worker process: one JSON object per line.
/// Request (runner -> worker, on the worker's stdin) and reply (worker -> runner, on
/// the worker's protocol pipe). Only plain data crosses: the link's opaque channel
/// model stays with the emulator in the parent.
public struct CellRequest: Sendable {
    public var transport: TransportSpec
    public var cell: CellContextSeed
    /// Seconds the plugin part may take.
    public var timeoutSeconds: Double
    /// The cell's timeout as the matrix states it, for messages.
    public var cellTimeoutSeconds: Double
    public var link: ResolvedLink
    public var client: Endpoint
    public var server: Endpoint

    public init(transport: TransportSpec, cell: CellContextSeed, timeoutSeconds: Double, cellTimeoutSeconds: Double,
                link: ResolvedLink, client: Endpoint, server: Endpoint) {
        self.transport = transport
        self.cell = cell
        self.timeoutSeconds = timeoutSeconds
        self.cellTimeoutSeconds = cellTimeoutSeconds
        self.link = link
        self.client = client
        self.server = server
    }

    public var json: JSONValue {
        func endpoint(_ e: Endpoint) -> JSONValue { ["address": .string(e.address), "namespace": JSONValue(e.namespace?.name)] }
        let l = link
        return [
            "transport": ["plugin": .string(transport.plugin), "label": .string(transport.label), "options": transport.options ?? .null,
                          "effective_options": transport.effectiveOptions, "uses_payload": .bool(transport.usesPayload),
                          "index": JSONValue(transport.index)],
            "cell": ["cell_id": .string(cell.cellID), "repetition": JSONValue(cell.repetition),
                     // Seeds use all 64 bits; a JSON number (double) would round them.
                     "seed": .string(String(cell.seed)),
                     "payload": cell.payload.map { ["count": JSONValue($0.count), "size": JSONValue($0.size)] } ?? .null,
                     "rtt_probes": JSONValue(cell.rttProbes)],
            "timeout_seconds": .number(timeoutSeconds),
            "cell_timeout_seconds": .number(cellTimeoutSeconds),
            "link": ["environment": .string(l.environment), "distance_m": JSONValue(l.distanceMeters), "distance_label": .string(l.distanceLabel),
                     "delay_ms": JSONValue(l.delayMs), "jitter_ms": JSONValue(l.jitterMs), "loss_percent": JSONValue(l.lossPercent),
                     "rate_mbps": JSONValue(l.rateMbps), "mtu": JSONValue(l.mtu), "rssi_dbm": JSONValue(l.rssiDbm),
                     "snr_db": JSONValue(l.snrDb), "mcs": JSONValue(l.mcs), "phy_rate_mbps": JSONValue(l.phyRateMbps),
                     "connected": .bool(l.connected)],
            "client": endpoint(client),
            "server": endpoint(server),
        ]
    }

    public init(json v: JSONValue) throws {
        func need<T>(_ x: T?, _ what: String) throws -> T {
            guard let x else { throw TransportError("worker request: missing or bad \(what)") }
            return x
        }
        let t = try need(v["transport"], "transport")
        transport = TransportSpec(plugin: try need(t["plugin"]?.stringValue, "transport.plugin"),
                                  label: try need(t["label"]?.stringValue, "transport.label"),
                                  options: t["options"].flatMap { $0.isNull ? nil : $0 },
                                  effectiveOptions: t["effective_options"] ?? .null,
                                  usesPayload: t["uses_payload"]?.boolValue ?? true, index: t["index"]?.intValue ?? 0)
        let c = try need(v["cell"], "cell")
        let payload: Payload? = c["payload"].flatMap { p in
            p["count"]?.intValue.flatMap { count in p["size"]?.intValue.map { Payload(count: count, size: $0) } }
        }
        cell = CellContextSeed(cellID: try need(c["cell_id"]?.stringValue, "cell.cell_id"),
                               repetition: try need(c["repetition"]?.intValue, "cell.repetition"),
                               seed: try need(c["seed"]?.stringValue.flatMap { UInt64($0) }, "cell.seed"),
                               payload: payload, rttProbes: try need(c["rtt_probes"]?.intValue, "cell.rtt_probes"))
        timeoutSeconds = try need(v["timeout_seconds"]?.doubleValue, "timeout_seconds")
        cellTimeoutSeconds = v["cell_timeout_seconds"]?.doubleValue ?? timeoutSeconds
        let l = try need(v["link"], "link")
        var link = ResolvedLink(environment: l["environment"]?.stringValue ?? "", distanceMeters: l["distance_m"]?.doubleValue,
                                distanceLabel: l["distance_label"]?.stringValue ?? "")
        link.delayMs = l["delay_ms"]?.doubleValue
        link.jitterMs = l["jitter_ms"]?.doubleValue
        link.lossPercent = l["loss_percent"]?.doubleValue
        link.rateMbps = l["rate_mbps"]?.doubleValue
        link.mtu = l["mtu"]?.intValue
        link.rssiDbm = l["rssi_dbm"]?.doubleValue
        link.snrDb = l["snr_db"]?.doubleValue
        link.mcs = l["mcs"]?.intValue
        link.phyRateMbps = l["phy_rate_mbps"]?.doubleValue
        link.connected = l["connected"]?.boolValue ?? true
        self.link = link
        func endpoint(_ e: JSONValue?) throws -> Endpoint {
            Endpoint(address: try need(e?["address"]?.stringValue, "endpoint address"),
                     namespace: e?["namespace"]?.stringValue.map(NetworkNamespace.init(name:)))
        }
        client = try endpoint(v["client"])
        server = try endpoint(v["server"])
    }
}

extension PluginSession.Outcome {
    /// The worker's reply line.
    public var json: JSONValue {
        switch self {
        case .measured(let m): ["measured": m.wireJSON]
        case .failed(let e): ["failed": .string(e)]
        case .timedOut(let e): ["timed_out": .string(e)]
        }
    }

    public init(json v: JSONValue) throws {
        if let m = v["measured"] { self = .measured(try TransportMeasurement(wireJSON: m)) }
        else if let e = v["failed"]?.stringValue { self = .failed(e) }
        else if let e = v["timed_out"]?.stringValue { self = .timedOut(e) }
        else { throw TransportError("worker reply not understood: \(v.compactText.prefix(200))") }
    }
}

extension TransportMeasurement {
    /// Lossless for the record: nanosecond counts are integers well below 2^53.
    var wireJSON: JSONValue {
        var o = JSONObject()
        o["connect_ns"] = JSONValue(connectNanos)
        o["rtt_ns"] = .array(rttNanos.map { JSONValue($0) })
        o["probes_sent"] = JSONValue(probesSent)
        o["bulk_ns"] = JSONValue(bulkNanos)
        o["delivery"] = delivery.map {
            ["sent_messages": JSONValue($0.sentMessages), "received_messages": JSONValue($0.receivedMessages),
             "sent_bytes": JSONValue($0.sentBytes), "received_bytes": JSONValue($0.receivedBytes),
             "reordered": JSONValue($0.reordered), "duplicated": JSONValue($0.duplicated)]
        } ?? .null
        o["rfc3550_jitter_ms"] = JSONValue(rfc3550JitterMs)
        o["status"] = .string(status.rawValue)
        o["error"] = JSONValue(error)
        o["extra"] = .object(extra)
        return .object(o)
    }

    init(wireJSON v: JSONValue) throws {
        self.init()
        func u64(_ x: JSONValue?) -> UInt64? { x?.doubleValue.flatMap { $0 >= 0 ? UInt64(exactly: $0.rounded()) : nil } }
        connectNanos = u64(v["connect_ns"])
        rttNanos = (v["rtt_ns"]?.arrayValue ?? []).compactMap(u64)
        probesSent = v["probes_sent"]?.intValue
        bulkNanos = u64(v["bulk_ns"])
        if let d = v["delivery"], !d.isNull {
            delivery = Delivery(sentMessages: d["sent_messages"]?.intValue ?? 0, receivedMessages: d["received_messages"]?.intValue ?? 0,
                                sentBytes: d["sent_bytes"]?.intValue ?? 0, receivedBytes: d["received_bytes"]?.intValue ?? 0,
                                reordered: d["reordered"]?.intValue ?? 0, duplicated: d["duplicated"]?.intValue ?? 0)
        }
        rfc3550JitterMs = v["rfc3550_jitter_ms"]?.doubleValue
        status = CellStatus(rawValue: v["status"]?.stringValue ?? "") ?? .ok
        error = v["error"]?.stringValue
        extra = v["extra"]?.objectValue ?? JSONObject()
    }
}
