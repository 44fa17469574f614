import Foundation

/// `manifest.json`: what ran, where, with which versions, and how it ended.
public enum Manifest {
    public static let schema = "peerbench.manifest/1"
    public static let peerbenchVersion = "0.1.0"

    /// - Parameter extra: further keys (isolation, sessions, interrupted cell), written after the standard ones.
    public static func make(runID: String, plan: RunPlan, linkMode: LinkMode, startedAt: Date, endedAt: Date?,
                            status: String, summary: RunSummary?, versions: [String: String],
                            extra: JSONObject = JSONObject()) -> JSONValue {
        var o = JSONObject()
        o["schema"] = .string(schema)
        o["run_id"] = .string(runID)
        o["status"] = .string(status)
        o["matrix_file"] = .string(plan.options.matrixFile)
        o["matrix_hash"] = .string(plan.matrix.hash)
        o["command_line"] = .array(plan.options.commandLine.map { .string($0) })
        o["started_at"] = .string(Record.rfc3339(startedAt))
        o["ended_at"] = endedAt.map { .string(Record.rfc3339($0)) } ?? .null
        o["link_mode"] = .string(linkMode.rawValue)
        o["seed"] = JSONValue(plan.options.seed ?? plan.matrix.seed)
        o["repetitions"] = JSONValue(plan.options.repetitions ?? plan.matrix.repetitions)
        o["cell_timeout_seconds"] = .number(plan.matrix.cellTimeoutSeconds)
        o["transports"] = .array(plan.matrix.transports.map { .string($0.label) })
        o["cells_total"] = JSONValue(plan.cells.count)
        o["order"] = .string(plan.order.rawValue)
        o["shard"] = plan.options.shard.map { .string($0.description) } ?? .null
        o["matrix_cells_total"] = JSONValue(plan.matrixCellCount)
        if let summary {
            var s = JSONObject()
            for status in CellStatus.allCases { s[status.rawValue] = JSONValue(summary.byStatus[status] ?? 0) }
            o["summary"] = .object(s)
        } else {
            o["summary"] = .null
        }
        for m in extra { o[m.key] = m.value }
        o["host"] = hostInfo()
        var v = JSONObject()
        v["peerbench"] = .string(peerbenchVersion)
        v["swift_compiler"] = .string(compilerVersion)
        for (k, value) in versions.sorted(by: { $0.key < $1.key }) { v[k] = .string(value) }
        o["versions"] = .object(v)
        o["matrix"] = plan.matrix.document
        return .object(o)
    }

    static func hostInfo() -> JSONValue {
        var u = utsname()
        uname(&u)
        func text<T>(_ t: T) -> String {
            withUnsafeBytes(of: t) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        let info = ProcessInfo.processInfo
        return ["hostname": .string(info.hostName), "os": .string(info.operatingSystemVersionString),
                "kernel": .string("\(text(u.sysname)) \(text(u.release)) \(text(u.version))"),
                "machine": .string(text(u.machine)), "cpus": JSONValue(info.activeProcessorCount),
                "memory_bytes": JSONValue(info.physicalMemory)]
    }

    static var compilerVersion: String {
        #if compiler(>=6.4)
        return ">= 6.4"
        #elseif compiler(>=6.3)
        return "6.3"
        #elseif compiler(>=6.2)
        return "6.2"
        #else
        return "< 6.2"
        #endif
    }
}

extension Manifest {
    /// RFC 3339 with fractional seconds, as every time in records and manifests.
    public static func rfc3339(_ date: Date) -> String { Record.rfc3339(date) }
}
