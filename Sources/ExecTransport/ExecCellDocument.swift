import Foundation
import PeerBenchJSON
import PeerBenchPlugin

/// The JSON document the harness hands each command (schema `peerbench.exec.cell/1`,
/// docs/protocol/exec.md): on standard input, and as a file named by `$PEERBENCH_CELL_FILE`.
enum ExecCellDocument {
    static let schema = "peerbench.exec.cell/1"

    /// - Parameters:
    ///   - server: for the client, where the server listens and what else its ready line said.
    ///   - secondsLeft: time until the harness kills the command.
    static func make(
        role: String, cell: CellContext, listenHost: String, server: (host: String, port: Int, ready: JSONObject)?,
        secondsLeft: Double, config: JSONValue?
    ) -> JSONValue {
        var o = JSONObject()
        o["schema"] = .string(schema)
        o["role"] = .string(role)
        o["cell_id"] = .string(cell.cellID)
        o["repetition"] = JSONValue(cell.repetition)
        o["seed"] = JSONValue(cell.seed)
        o["payload"] = cell.payload.map { ["count": JSONValue($0.count), "size": JSONValue($0.size)] } ?? .null
        o["rtt_probes"] = JSONValue(cell.rttProbes)
        o["deadline_seconds"] = .number((secondsLeft * 1000).rounded() / 1000)
        o["listen"] = ["host": .string(listenHost)]
        if let server {
            var s = JSONObject()
            s["host"] = .string(server.host)
            s["port"] = JSONValue(server.port)
            s["ready"] = .object(server.ready)
            o["server"] = .object(s)
        } else {
            o["server"] = .null
        }
        let l = cell.link
        o["link"] = [
            "environment": .string(l.environment), "distance_m": JSONValue(l.distanceMeters),
            "delay_ms": JSONValue(l.delayMs), "jitter_ms": JSONValue(l.jitterMs), "loss_percent": JSONValue(l.lossPercent),
            "rate_mbps": JSONValue(l.rateMbps), "mtu": JSONValue(l.mtu),
        ]
        o["config"] = config ?? .null
        return .object(o)
    }

    /// Writes `document` to a fresh temporary file and returns its path.
    static func write(_ document: JSONValue, role: String, cellID: String) throws -> String {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("peerbench-exec-\(cellID.prefix(16))-\(role)-\(UUID().uuidString.prefix(8)).json").path
        do {
            try Data((document.prettyText).utf8).write(to: URL(fileURLWithPath: path))
        } catch {
            throw TransportError("exec: cannot write the cell document \(path): \(error)")
        }
        return path
    }
}
