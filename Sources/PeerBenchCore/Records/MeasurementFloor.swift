import Foundation
import PeerBenchPlugin
import PeerBenchSockets
import PeerBenchSystem
import PeerBenchTestbed

#if canImport(Glibc)
    import Glibc
#endif

/// What the harness itself cannot resolve on this machine at this time, measured when
/// a run starts and kept in the manifest (`measurement_floor`, docs/RECORDS.md): the
/// clock, each transport's RTT over plain loopback (no link emulation: the shortest
/// round trip its own stack and our harness allow), and, on an emulated link, how late
/// the emulator releases packets. A difference between transports smaller than these
/// is not a difference the run can show.
public struct MeasurementFloor: Sendable, Equatable, Codable {
    public var measuredAt: String
    public var clock: Clock
    public var loopbackRTT: [TransportFloor]
    /// Null when the link is not emulated.
    public var emulatorReleaseError: ReleaseError?
    /// The machine's load average (1, 5 and 15 min, `/proc/loadavg`) when the floor was
    /// measured: other work competing for the cores the emulator needs. Null where unreadable.
    public var loadAverage: [Double]?
    /// CPUs this process may run on (`Cpus_allowed_list`): all of the machine's, or
    /// what a scheduler's CPU binding gave the run.
    public var cpusAllowed: Int?

    public init(
        measuredAt: String, clock: Clock, loopbackRTT: [TransportFloor], emulatorReleaseError: ReleaseError?,
        loadAverage: [Double]? = nil, cpusAllowed: Int? = nil
    ) {
        self.measuredAt = measuredAt
        self.clock = clock
        self.loopbackRTT = loopbackRTT
        self.emulatorReleaseError = emulatorReleaseError
        self.loadAverage = loadAverage
        self.cpusAllowed = cpusAllowed
    }

    enum CodingKeys: String, CodingKey {
        case measuredAt = "measured_at", clock, loopbackRTT = "loopback_rtt", emulatorReleaseError = "emulator_release_error"
        case loadAverage = "load_average", cpusAllowed = "cpus_allowed"
    }

    /// The 1-minute load average per allowed CPU (1 = every core busy), or nil.
    var loadPerCPU: Double? {
        guard let load = loadAverage?.first else { return nil }
        return load / Double(max(1, cpusAllowed ?? 1))
    }

    /// CLOCK_MONOTONIC: what `clock_getres` claims and what reading it twice costs.
    public struct Clock: Sendable, Equatable, Codable {
        public var source: String
        public var resolutionNanos: UInt64
        /// Successive-read deltas (ns) over `reads` back-to-back reads: the smallest
        /// interval two timestamps can tell apart in practice.
        public var readDeltaMinNanos: UInt64
        public var readDeltaP50Nanos: UInt64
        public var readDeltaP99Nanos: UInt64
        public var reads: Int

        enum CodingKeys: String, CodingKey {
            case source, resolutionNanos = "resolution_ns", readDeltaMinNanos = "read_delta_min_ns"
            case readDeltaP50Nanos = "read_delta_p50_ns", readDeltaP99Nanos = "read_delta_p99_ns", reads
        }
    }

    /// One transport's RTT probes over loopback, or why they could not run.
    public struct TransportFloor: Sendable, Equatable, Codable {
        public var label: String
        public var plugin: String
        public var probes: Int
        public var p50Ms: Double?
        public var p99Ms: Double?
        public var maxMs: Double?
        public var error: String?

        public init(label: String, plugin: String, probes: Int, p50Ms: Double?, p99Ms: Double?, maxMs: Double?, error: String?) {
            self.label = label
            self.plugin = plugin
            self.probes = probes
            self.p50Ms = p50Ms
            self.p99Ms = p99Ms
            self.maxMs = maxMs
            self.error = error
        }

        enum CodingKeys: String, CodingKey { case label, plugin, probes, p50Ms = "p50_ms", p99Ms = "p99_ms", maxMs = "max_ms", error }
    }

    /// How late the emulator released packets against their computed departure time
    /// during a short calibration burst, microseconds.
    public struct ReleaseError: Sendable, Equatable, Codable {
        public var packets: Int
        public var p50Micros: Int
        public var p99Micros: Int
        public var calibration: String

        public init(packets: Int, p50Micros: Int, p99Micros: Int, calibration: String) {
            self.packets = packets
            self.p50Micros = p50Micros
            self.p99Micros = p99Micros
            self.calibration = calibration
        }

        enum CodingKeys: String, CodingKey { case packets, p50Micros = "p50_us", p99Micros = "p99_us", calibration }
    }
}

extension MeasurementFloor {
    /// Probes per transport at run start: enough for a p99, short enough to cost well
    /// under a second per stream transport on loopback.
    public static let loopbackProbes = 200

    /// `/proc/loadavg`'s three averages now, or nil.
    public static func readLoadAverage(_ path: String = "/proc/loadavg") -> [Double]? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        let values = text.split(separator: " ").prefix(3).compactMap { Double($0) }
        return values.count == 3 ? values : nil
    }

    /// How many CPUs a `Cpus_allowed_list` (`0-3,6`) names, or nil.
    public static func countCPUs(list: Substring) -> Int? {
        var n = 0
        for part in list.split(separator: ",") {
            let ends = part.split(separator: "-").map { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard let first = ends.first ?? nil else { return nil }
            let last = ends.count > 1 ? ends[1] : first
            guard let last, last >= first else { return nil }
            n += last - first + 1
        }
        return n > 0 ? n : nil
    }

    /// The CPUs this process may run on, from `/proc/self/status`, or nil.
    public static func readCPUsAllowed(_ path: String = "/proc/self/status") -> Int? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed_list:") })
        else { return nil }
        return countCPUs(list: line.dropFirst("Cpus_allowed_list:".count).drop { $0 == " " || $0 == "\t" })
    }

    /// The clock part, measured now.
    public static func measureClock(reads: Int = 100_000) -> Clock {
        var res = timespec()
        clock_getres(CLOCK_MONOTONIC, &res)
        var deltas = [UInt64](repeating: 0, count: reads)
        var last = MonotonicClock.now()
        for i in 0..<reads {
            let t = MonotonicClock.now()
            deltas[i] = t - last
            last = t
        }
        deltas.sort()
        return Clock(
            source: "CLOCK_MONOTONIC", resolutionNanos: UInt64(res.tv_sec) * 1_000_000_000 + UInt64(res.tv_nsec),
            readDeltaMinNanos: deltas[0], readDeltaP50Nanos: deltas[reads / 2],
            readDeltaP99Nanos: deltas[min(reads - 1, reads * 99 / 100)], reads: reads)
    }

    /// One transport's probes-only cell over 127.0.0.1 (no payload, no emulation),
    /// as the runner would run it; a failure is recorded, never thrown.
    public static func measureLoopback(
        _ spec: TransportSpec, registry: PluginRegistry, probes: Int = loopbackProbes,
        timeoutSeconds: Double = 10
    ) async -> TransportFloor {
        func failed(_ why: String) -> TransportFloor {
            TransportFloor(label: spec.label, plugin: spec.plugin, probes: 0, p50Ms: nil, p99Ms: nil, maxMs: nil, error: why)
        }
        if registry.type(named: spec.plugin)?.descriptor.usesPayload == false {
            // uwb: its round trips are ranging rounds at the update rate, not ping-pongs.
            return failed("not measured: \(spec.plugin) has no ping-pong probes (its rtt_ms are its own rounds)")
        }
        let plugin: any TransportPlugin
        do { plugin = try registry.make(spec.plugin, options: spec.options, path: .root).0 } catch { return failed("\(error)") }
        let cell = CellContext.loopback(payload: nil, rttProbes: probes, timeoutSeconds: timeoutSeconds, distanceMeters: 1)
        let deadline = Task {
            try await Task.sleep(nanoseconds: UInt64(timeoutSeconds * 1e9))
            cell.cancellation.cancel()
        }
        defer { deadline.cancel() }
        do {
            let server = try await plugin.startServer(cell)
            let m: TransportMeasurement
            do { m = try await plugin.runClient(cell, server: server.address) } catch {
                server.stop()
                throw error
            }
            server.stop()
            guard let s = RTTSummary(nanoseconds: m.rttNanos) else { return failed("no probe was answered") }
            return TransportFloor(label: spec.label, plugin: spec.plugin, probes: s.count, p50Ms: s.p50, p99Ms: s.p99, maxMs: s.max, error: nil)
        } catch {
            return failed("\(error)")
        }
    }
}
