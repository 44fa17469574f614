import Foundation
import LinkEmulation
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem

// Measures the link emulator: TCP goodput through it (iperf3 as an independent
// peer), its scheduling error under UDP load, and its CPU cost per forwarded packet.
// Needs root (namespaces, TUN). Run through scripts/bench-link.sh.
#if canImport(Glibc)
    import Glibc
#endif

struct Options {
    var mode = "tcp"
    var delayMs = 0.0
    var rateMbps: Double?
    var mtu = 1_500
    var seconds = 10
    var udpMbps = 100.0
    var streams = 1
    var schedule = "always-on"
    var tso = true
    var lossPercent = 0.0
    var shaper = true
    /// `--env NAME` (a built-in environment or an inline profile's JSON) and `--distance
    /// METRES`: the radio model's link instead of the fixed parameters above.
    var environment: String?
    var distance = 1.0

    init(_ args: [String]) {
        var i = 0
        func next() -> String {
            i += 1
            return i < args.count ? args[i] : ""
        }
        while i < args.count {
            switch args[i] {
            case "--mode": mode = next()
            case "--delay-ms": delayMs = Double(next()) ?? 0
            case "--rate-mbps": rateMbps = Double(next())
            case "--mtu": mtu = Int(next()) ?? 1_500
            case "--seconds": seconds = Int(next()) ?? 10
            case "--udp-mbps": udpMbps = Double(next()) ?? 100
            case "--streams": streams = Int(next()) ?? 1
            case "--schedule": schedule = next()
            case "--no-tso": tso = false
            case "--loss-percent": lossPercent = Double(next()) ?? 0
            case "--no-shaper": shaper = false
            case "--env": environment = next()
            case "--distance": distance = Double(next()) ?? 1
            default: fatalError("unknown option \(args[i]); see scripts/bench-link.sh")
            }
            i += 1
        }
    }
}

func cpuNanos() -> UInt64 {
    var ru = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &ru)
    func ns(_ t: timeval) -> UInt64 { UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_usec) * 1_000 }
    return ns(ru.ru_utime) + ns(ru.ru_stime)
}

func start(_ ns: NetworkNamespace, _ args: [String], output: Pipe? = nil) throws -> Process {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
    p.arguments = ["netns", "exec", ns.name] + args
    p.standardOutput = output ?? FileHandle.nullDevice
    p.standardError = FileHandle.standardError
    try p.run()
    return p
}

let o = Options(Array(CommandLine.arguments.dropFirst()))

// `--mode table`: the radio model's resolved links as a Markdown table (docs/LINK-MODEL.md); needs no privileges.
if o.mode == "table" {
    let model = RadioModel()
    print("| environment | distance | RSSI dBm | SNR dB | MCS | PHY Mbit/s | rate Mbit/s | loss % | connected |")
    print("|---|---|---|---|---|---|---|---|---|")
    for env in model.builtInEnvironments {
        for d in [1.0, 5, 10, 30, nil] {
            let l = try model.resolve(environment: env, profile: nil, distance: d, distanceLabel: d.map { String(Int($0)) } ?? "max")
            func f(_ v: Double?) -> String { v.map { String(format: "%.1f", $0) } ?? "-" }
            let dist = d.map { "\(Int($0)) m" } ?? "max = \(Int(l.distanceMeters!)) m"
            print(
                "| \(env) | \(dist) | \(f(l.rssiDbm)) | \(f(l.snrDb)) | \(l.mcs.map(String.init) ?? "none") | \(f(l.phyRateMbps)) | \(f(l.rateMbps)) | \(String(format: "%.2f", l.lossPercent ?? 0)) | \(l.connected ? "yes" : "no") |"
            )
        }
    }
    exit(0)
}
let testbed = try EmulatedTestbed()
defer { testbed.shutdownNow() }
var parameters = EmulatorParameters(delayNanos: UInt64(o.delayMs * 1e6), rateBitsPerSecond: o.rateMbps.map { $0 * 1e6 }, mtu: o.mtu)
if o.schedule == "bulk" { parameters.schedule = .bulk }
parameters.allowSegmentationOffload = o.tso
parameters.lossProbability = o.lossPercent / 100
if !o.shaper { parameters.senderShaping = nil }
if let env = o.environment {
    var profile: JSONValue?
    if env.hasPrefix("{") { profile = try JSONParser.parse(env) }
    let link = try RadioModel().resolve(
        environment: profile == nil ? env : "custom", profile: profile, distance: o.distance,
        distanceLabel: String(o.distance))
    parameters = EmulatorParameters(link)
    print("link: \(link.summary)")
}
let (client, server) = try testbed.configure(parameters, seed: 1)
let (cns, sns) = (client.namespace!, server.namespace!)

// `--mode setup`: what a cell's link set-up costs. `configure` 50 times (shaper, MTU,
// qdisc counters: the ip and tc runs of every cell), and the qdisc read it makes, `tc -s
// -j qdisc show`, run 50 times by ChildProcess and by Foundation's Process (the
// reference: what IPCommand used before 2026-12-02) in the same run.
if o.mode == "setup" {
    func figures(_ name: String, _ body: () throws -> Void) rethrows -> Double {
        var ms: [Double] = []
        for _ in 0..<50 {
            let t = MonotonicClock.now()
            try body()
            ms.append(Double(MonotonicClock.elapsed(since: t)) / 1e6)
        }
        ms.sort()
        print(name + String(format: "_ms median=%.2f p90=%.2f max=%.2f mean=%.2f", ms[25], ms[45], ms[49], ms.reduce(0, +) / 50))
        return ms.reduce(0, +) / 50
    }
    let tcPaths: [String] = ["/usr/sbin/tc", "/sbin/tc"]
    let tc = tcPaths.first { access($0, X_OK) == 0 } ?? "/usr/sbin/tc"
    let show = ["-n", cns.name, "-s", "-j", "qdisc", "show", "dev", "pb0"]
    _ = try figures("configure") { _ = try testbed.configure(parameters, seed: 1) }
    let spawned: Double = try figures("tc_childprocess") { _ = try ChildProcess.run(tc, show) }
    let foundation: Double = try figures("tc_foundation_process") {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tc)
        p.arguments = show
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        _ = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
    }
    print(String(format: "tc_foundation_over_childprocess=%.1f", foundation / spawned))
    exit(0)
}

// `--mode hold`: keep the link up for manual experiments; prints the namespaces and
// the counters every second until the time is up.
if o.mode == "hold" {
    print("client_ns=\(cns.name) server_ns=\(sns.name)")

    for _ in 0..<o.seconds {
        sleep(1)
        let c = testbed.counters()!
        print("packets_up=\(c.packetsUp) drops_up=\(c.dropsUp) causes=\(c.dropCauses)")

    }
    exit(0)
}

// A new namespace starts with the kernel's default TCP buffer limits (6 MiB receive),
// which cap one flow at about 600 Mbit/s over a 40 ms round trip. Raise them inside
// the benchmark's own namespaces so the emulator, not the window, is what is measured.
for ns in [cns, sns] {
    let p = try start(ns, ["sysctl", "-q", "-w", "net.ipv4.tcp_rmem=4096 131072 67108864", "net.ipv4.tcp_wmem=4096 16384 67108864"])
    p.waitUntilExit()
}

let iperfServer = try start(sns, ["iperf3", "-s", "-1", "-B", server.address, "-p", "5211"])
usleep(300_000)
var args = ["iperf3", "-c", server.address, "-p", "5211", "-t", String(o.seconds), "-J", "-P", String(o.streams)]
// --udp-mbps 0: unpaced (iperf3 -b 0 sends as fast as the socket accepts).
// Unpaced, the receiver needs a larger socket buffer than the default 208 KiB, or it,
// not the link, drops datagrams at a few hundred Mbit/s (UdpRcvbufErrors).
if o.mode == "udp" { args += ["-u", "-b", "\(Int(o.udpMbps))M", "-l", "1400"] + (o.udpMbps == 0 ? ["-w", "4M"] : []) }
let out = Pipe()
let cpu0 = cpuNanos(), wall0 = MonotonicClock.now()
let iperfClient = try start(cns, args, output: out)
let json = out.fileHandleForReading.readDataToEndOfFile()
iperfClient.waitUntilExit()
let cpu = cpuNanos() - cpu0, wall = MonotonicClock.now() - wall0
iperfServer.waitUntilExit()

let report = (try? JSONSerialization.jsonObject(with: json)) as? [String: Any]
let end = report?["end"] as? [String: Any]
let goodput: Double
if o.mode == "udp" {
    // The receiver's figure: what crossed the link, not what the sender handed over.
    let sum = (end?["sum_received"] ?? end?["sum"]) as? [String: Any]
    goodput = (sum?["bits_per_second"] as? Double) ?? 0
    print(String(format: "udp_lost_percent=%.2f", (sum?["lost_percent"] as? Double) ?? -1))
} else {
    goodput = ((end?["sum_received"] as? [String: Any])?["bits_per_second"] as? Double) ?? 0
}
let c = testbed.counters()!
let e = testbed.schedulingError()!
let forwarded = c.packetsUp + c.packetsDown - c.dropsUp - c.dropsDown
let frames = e.count
print(
    String(
        format: "mode=%@ mtu=%d delay_ms=%.1f rate_mbps=%@ loss_percent=%.3f schedule=%@ tso=%@ streams=%d seconds=%d shaper=%@", o.mode, o.mtu,
        o.delayMs, o.rateMbps.map { String($0) } ?? "unlimited", o.lossPercent, o.schedule, (o.tso && o.lossPercent == 0) ? "on" : "off", o.streams,
        o.seconds, (o.shaper && o.rateMbps != nil) ? "tbf" : "none"))
print(String(format: "goodput_mbps=%.1f", goodput / 1e6))
print("packets_up=\(c.packetsUp) packets_down=\(c.packetsDown) drops=\(c.dropsUp + c.dropsDown) causes=\(c.dropCauses) frames_forwarded=\(frames)")
print(
    String(
        format: "emulator_cpu_percent=%.1f cpu_ns_per_ip_packet=%.0f cpu_ns_per_frame=%.0f", Double(cpu) / Double(wall) * 100,
        Double(cpu) / Double(max(forwarded, 1)), Double(cpu) / Double(max(frames, 1))))
print(
    "sched_error_us p50=\(e.percentileMicros(0.5) ?? -1) p90=\(e.percentileMicros(0.9) ?? -1) p99=\(e.percentileMicros(0.99) ?? -1) p999=\(e.percentileMicros(0.999) ?? -1) max=\(e.percentileMicros(1.0) ?? -1)"
)
