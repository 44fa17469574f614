import ExecTransport
import Foundation
import PeerBenchCore
import Testing
import TransportTestSupport

/// iperf3 through the external contract (plugins/iperf3/iperf3-peer), run by the real
/// runner on loopback: every uniform key is present and carries real figures.
@Suite(.serialized, .timeLimit(.minutes(3))) struct IperfTransportTests {
    static func transport(_ label: String, _ mode: String, _ more: [String] = []) -> String {
        let client = (["plugins/iperf3/iperf3-peer", "client", mode] + more).map { "\"\($0)\"" }.joined(separator: ", ")
        return
            #"{"plugin": "exec", "label": "\#(label)", "options": {"server": ["plugins/iperf3/iperf3-peer", "server"], "client": [\#(client)], "workingDirectory": "\#(packageRoot)"}}"#
    }

    /// The keys `peerbench.record/1` promises in every record.
    static let uniformKeys = [
        "schema", "run_id", "cell_id", "repetition", "seed", "transport", "environment", "distance_m",
        "distance_label", "payload", "link", "status", "error", "started_at", "connect_ms", "bulk_seconds",
        "total_seconds", "rtt_ms", "jitter_ms", "throughput_mbps", "delivery", "extra",
    ]

    @Test func tcpRecordCarriesEveryUniformKey() async throws {
        let records = try await runMatrix(
            [ExecPlugin.self], transports: "[\(Self.transport("iperf3-tcp", "--tcp"))]", counts: "[2000]", sizes: "[4096]")
        let r = try #require(records.first)
        #expect(r["status"] == "ok", "\(r["error"] ?? .null)")
        for key in Self.uniformKeys { #expect(r[key] != nil, "missing \(key)") }
        #expect(Set(r.objectValue?.keys ?? []) == Set(Record.topLevelKeys))
        #expect((r["connect_ms"]?.doubleValue ?? -1) > 0)
        #expect(r["rtt_ms"]?["count"] == 20)
        let p50 = r["rtt_ms"]?["p50"]?.doubleValue ?? 0
        #expect(p50 > 0.001 && p50 < 50, "loopback RTT through Python, ms: \(p50)")
        #expect((r["throughput_mbps"]?.doubleValue ?? 0) > 50, "loopback TCP moves well over 50 Mbit/s")
        #expect(r["delivery"]?["sent_bytes"] == 8_192_000)
        #expect(r["delivery"]?["received_messages"] == 2000)
        #expect(r["delivery"]?["loss_ratio"] == 0)
        // iperf3's receiver counts until TEST_END: most, not necessarily all, of the bytes.
        let counted = r["delivery"]?["received_bytes"]?.intValue ?? 0
        #expect(counted > 0 && counted <= 8_192_000)
        let receiverMbps = r["extra"]?["iperf3"]?["receiver_mbps"]?.doubleValue ?? 0
        #expect(abs((r["throughput_mbps"]?.doubleValue ?? 0) - receiverMbps) / receiverMbps < 0.01, "throughput is iperf3's receiver figure")
        #expect(r["jitter_ms"]?["rfc3550"] == .null, "TCP has no one-way jitter")
        #expect(r["jitter_ms"]?["ipdv_mean"]?.doubleValue != nil)
        let iperf = try #require(r["extra"]?["iperf3"])
        #expect(iperf["mode"] == "tcp")
        #expect(iperf["version"]?.stringValue?.hasPrefix("iperf 3") == true)
        #expect((iperf["receiver_mbps"]?.doubleValue ?? 0) > 0)
        #expect(iperf["rtt_us"]?["mean_rtt"]?.doubleValue != nil)
    }

    @Test func udpRecordCarriesLossAndJitter() async throws {
        // Paced at 200 Mbit/s so loopback loses little; iperf3 counts loss from sequence numbers.
        let records = try await runMatrix(
            [ExecPlugin.self], transports: "[\(Self.transport("iperf3-udp", "--udp", ["--bitrate", "200M"]))]",
            counts: "[5000]", sizes: "[1024]")
        let r = try #require(records.first)
        #expect(r["status"] == "ok", "\(r["error"] ?? .null)")
        #expect(Set(r.objectValue?.keys ?? []) == Set(Record.topLevelKeys))
        #expect(r["connect_ms"] == .null, "UDP has no connection set-up")
        #expect(r["rtt_ms"]?["count"] == 20)
        #expect(r["delivery"]?["sent_messages"] == 5000)
        // How many arrive is the machine's business (beside two busy loops iperf3's
        // receiver kept 1 618 of 5 000); that the record's loss is what arrived is ours.
        let received = r["delivery"]?["received_messages"]?.intValue ?? 0
        #expect(received > 0 && received <= 5000, "received \(received) of 5000")
        let loss = r["delivery"]?["loss_ratio"]?.doubleValue ?? -1
        #expect(loss >= 0 && loss < 1)
        #expect(abs(loss - (1 - Double(received) / 5000)) < 0.02, "loss \(loss) against \(received) of 5000 received")
        let jitter = try #require(r["jitter_ms"]?["rfc3550"]?.doubleValue)
        #expect(jitter >= 0 && jitter < 10, "loopback jitter, ms: \(jitter)")
        let mbps = r["throughput_mbps"]?.doubleValue ?? 0
        #expect(mbps > 20 && mbps < 260, "paced to 200 Mbit/s: \(mbps)")
    }

    @Test func iperf3ErrorFailsTheCellWithItsMessage() async throws {
        // A datagram larger than UDP allows makes iperf3's client fail; its message reaches the record.
        let records = try await runMatrix(
            [ExecPlugin.self], transports: "[\(Self.transport("iperf3-bad", "--udp"))]",
            counts: "[10]", sizes: "[70000]", probes: 2, timeout: 15)
        let r = try #require(records.first)
        #expect(r["status"] == "failed")
        let error = r["error"]?.stringValue ?? ""
        #expect(
            error.hasPrefix("exec: the client command plugins/iperf3/iperf3-peer client --udp exited with status 1; stderr: iperf3-peer: "),
            "\(error)")
        #expect(error.contains("block size invalid"), "\(error)")
    }
}
