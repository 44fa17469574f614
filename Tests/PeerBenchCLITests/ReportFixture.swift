import Foundation

/// A run folder as `peerbench run` leaves it (records.jsonl, manifest.json and, where
/// asked, samples.jsonl), with values chosen so each figure has something to draw:
/// two environments x two distances x two payloads, three stream/datagram transports
/// and uwb, several repetitions, one failed and one timed-out cell.
enum ReportFixture {
    static let runID = "20261123T000000Z-fixture"
    static let environments: [(name: String, distances: [(label: String, metres: Double)])] = [
        ("free-field", [("10", 10), ("max", 92)]), ("underground", [("10", 10), ("max", 23)]),
    ]
    static let payloads = [(100, 128), (100, 16384)]
    static let transports = [("tcp", "tcp", 30.0), ("udp", "udp", 15.0), ("quic", "quic", 25.0)]

    /// Writes the folder; returns the number of records.
    @discardableResult
    static func write(to dir: String, repetitions: Int = 4, samples: Bool = true) throws -> Int {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var records: [String] = []
        var sampleLines: [String] = []
        var cell = 0
        for env in environments {
            for d in env.distances {
                var cells: [(plugin: String, label: String, payload: (Int, Int)?, base: Double)] =
                    payloads.flatMap { p in transports.map { (plugin: $0.0, label: $0.1, payload: Optional(p), base: $0.2) } }
                cells.append((plugin: "uwb", label: "uwb", payload: nil, base: 0))
                for c in cells {
                    cell += 1
                    for rep in 1...repetitions {
                        let cellID = String(format: "%016x", cell)
                        var status = "ok", error: String? = nil
                        if cell == 3 && rep == 2 {
                            status = "failed"
                            error = "quic: handshake failed: peer closed"
                        }
                        if cell == 7 && rep == 1 {
                            status = "timeout"
                            error = "cell did not finish within 30 s"
                        }
                        let usable = status == "ok"
                        let fall = 1 - d.metres / 200
                        let tput = c.plugin == "uwb" || !usable ? nil : c.base * fall + Double(rep) * 0.4
                        let rttBase = 2.0 + d.metres / 50 + (c.label == "udp" ? -0.2 : 0)
                        var rec: [String: Any] = [
                            "schema": "peerbench.record/1", "run_id": runID, "cell_id": cellID, "repetition": rep,
                            "seed": cell * 100 + rep,
                            "transport": ["plugin": c.plugin, "label": c.label, "options": [String: Any]()],
                            "environment": env.name, "distance_m": d.metres, "distance_label": d.label,
                            "payload": c.payload.map { ["count": $0.0, "size": $0.1] as Any } ?? NSNull(),
                            "link": ["mode": "emulated", "delay_ms": 1], "status": status, "error": error as Any? ?? NSNull(),
                            "started_at": "2026-11-23T00:00:00.000Z", "connect_ms": v(usable ? rttBase * 1.5 : nil),
                            "bulk_seconds": v(tput == nil ? nil : 0.5), "total_seconds": 1.0,
                            "rtt_ms": usable
                                ? [
                                    "count": 20, "min": rttBase * 0.8, "mean": rttBase + 0.1, "p50": rttBase + Double(rep) * 0.01,
                                    "p90": rttBase * 1.4, "p99": rttBase * 1.6, "max": rttBase * 1.7, "stddev": 0.2,
                                ] as Any : NSNull(),
                            "jitter_ms": ["ipdv_mean": v(usable ? 0.3 : nil), "rfc3550": NSNull()],
                            "throughput_mbps": v(tput),
                            "delivery": usable
                                ? [
                                    "sent_messages": 100, "received_messages": 100, "sent_bytes": 12_800, "received_bytes": 12_800,
                                    "loss_ratio": c.label == "udp" ? d.metres / 400 : 0, "reordered": 0, "duplicated": 0,
                                ] as Any
                                : NSNull(),
                            "extra": [String: Any](),
                        ]
                        if c.plugin == "uwb", usable {
                            rec["extra"] = [
                                "uwb": [
                                    "distance_availability": max(0, 1 - d.metres / 60),
                                    "distance_error_m": ["mean": 0.02, "stddev": 0.05, "p95": 0.05 + d.metres / 500],
                                ]
                            ]
                        }
                        records.append(try json(rec))
                        if usable {
                            let rtt = (0..<20).map { UInt64((rttBase + Double($0 % 7) * 0.1) * 1e6) }
                            let series: Any =
                                tput.map { t in
                                    [
                                        "interval_ns": 100_000_000, "bytes": (0..<5).map { Int(t * 1e6 / 8 * 0.1 * (0.8 + Double($0) * 0.05)) },
                                        "datagrams": NSNull(),
                                    ] as Any
                                } ?? NSNull()
                            sampleLines.append(
                                try json([
                                    "schema": "peerbench.samples/1", "run_id": runID, "cell_id": cellID, "repetition": rep,
                                    "rtt_ns": rtt, "rtt_loaded_ns": NSNull(), "bulk_series": series, "ranging": NSNull(),
                                ]))
                        }
                    }
                }
            }
        }
        try (records.joined(separator: "\n") + "\n").write(toFile: dir + "/records.jsonl", atomically: true, encoding: .utf8)
        if samples {
            try (sampleLines.joined(separator: "\n") + "\n").write(toFile: dir + "/samples.jsonl", atomically: true, encoding: .utf8)
        }
        let manifest: [String: Any] = [
            "schema": "peerbench.manifest/1", "run_id": runID, "status": "finished", "matrix_file": "fixture.json",
            "matrix_hash": "fixture0000000000", "command_line": ["peerbench", "run", "fixture.json", "--repetitions", "\(repetitions)"],
            "link_mode": "emulated", "seed": 1, "repetitions": repetitions, "cells_total": records.count,
            "versions": ["peerbench": "0.1.0", "ngtcp2": "0.12.1"],
            "measurement_floor": [
                "measured_at": "2026-11-23T04:00:00.000Z",
                "clock": [
                    "source": "CLOCK_MONOTONIC", "resolution_ns": 1, "read_delta_min_ns": 20, "read_delta_p50_ns": 30,
                    "read_delta_p99_ns": 60, "reads": 100000,
                ],
                "loopback_rtt": [
                    ["label": "tcp", "plugin": "tcp", "probes": 200, "p50_ms": 0.031, "p99_ms": 0.071, "max_ms": 0.2, "error": NSNull()],
                    ["label": "quic", "plugin": "quic", "probes": 200, "p50_ms": 0.062, "p99_ms": 0.48, "max_ms": 2.7, "error": NSNull()],
                ],
                "emulator_release_error": ["packets": 2000, "p50_us": 35, "p99_us": 94, "calibration": "fixture"],
            ] as [String: Any],
        ]
        try json(manifest).write(toFile: dir + "/manifest.json", atomically: true, encoding: .utf8)
        return records.count
    }

    static func v(_ x: Double?) -> Any { x.map { $0 as Any } ?? NSNull() }

    static func json(_ o: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: o, options: [.sortedKeys]), as: UTF8.self)
    }
}
