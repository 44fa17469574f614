#!/usr/bin/env python3
"""Benchmark: PeerBench's TCP and UDP plugins against iperf3 on the same loopback path,
in one run, printing the figures and their ratios; plus PeerBench's per-cell overhead.

    ./scripts/bench-transports.py            # builds release first
    ./scripts/bench-transports.py --rounds 5

Targets (issue #2): TCP goodput with 16 384-byte messages >= 0.9 x iperf3 -l 16384;
UDP received goodput with 1 400-byte datagrams >= 0.9 x iperf3 -u -b 0 -l 1400;
per-cell overhead of a 100 x 128-byte TCP cell (wall time minus transfer) median <= 20 ms.
Each figure is the median of --rounds alternating runs (iperf3, PeerBench, iperf3, ...),
so slow drift of the machine does not favour either side.

With --workloads, the workload kinds' harness overhead too (docs/WORKLOADS.md): TCP
`bidir` (both directions at once, their sum) against `iperf3 --bidir -l 16384`, TCP
`download` against `iperf3 -R -l 16384`, and TCP over 4 parallel streams against
`iperf3 -P 4 -l 16384`, same alternation.
"""
import argparse, json, os, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def sh(args, **kw):
    return subprocess.run(args, check=True, capture_output=True, text=True, **kw)


def peerbench_bin():
    sh(["swift", "build", "-c", "release", "--product", "peerbench"], cwd=ROOT)
    return os.path.join(sh(["swift", "build", "-c", "release", "--show-bin-path"], cwd=ROOT).stdout.strip(), "peerbench")


def iperf3(extra, seconds):
    port = "5299"
    server = subprocess.Popen(["iperf3", "-s", "-1", "-B", "127.0.0.1", "-p", port], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.3)
        out = json.loads(sh(["iperf3", "-c", "127.0.0.1", "-p", port, "-t", str(seconds), "-J"] + extra).stdout)
    finally:
        # A server still there (the client failed) must not hold the port for the next round.
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            raise
    end = out["end"]
    if "-u" in extra:
        # Received goodput: what the server got (sum_received where iperf3 reports it).
        s = end.get("sum_received") or end["sum"]
        bps = s["bits_per_second"]
        if "sum_received" not in end:
            bps *= 1 - s.get("lost_percent", 0) / 100
        return bps / 1e6
    if "--bidir" in extra:
        # Both directions at once: what each receiver got, summed.
        return (end["sum_received"]["bits_per_second"] + end["sum_received_bidir_reverse"]["bits_per_second"]) / 1e6
    return end["sum_received"]["bits_per_second"] / 1e6


def peerbench(binary, plugin, count, size, probes=0, reps=1, workload=None):
    with tempfile.TemporaryDirectory() as d:
        m = {"name": "bench", "rttProbes": probes, "repetitions": reps, "cellTimeoutSeconds": 120,
             "transports": [{"plugin": plugin}],
             "matrix": {"environments": ["free-field"], "distances": [1], "payloads": {"counts": [count], "sizes": [size]}}}
        if workload:
            m["matrix"]["workloads"] = [workload]
        path = os.path.join(d, "m.json")
        with open(path, "w") as f:
            json.dump(m, f)
        t0 = time.monotonic()
        subprocess.run([binary, "run", path, "--out", os.path.join(d, "out"), "--link", "none", "--quiet"], check=True)
        wall = time.monotonic() - t0
        with open(os.path.join(d, "out", "records.jsonl")) as f:
            recs = [json.loads(l) for l in f if l.strip()]
    for r in recs:
        if r["status"] != "ok":
            sys.exit(f"peerbench {plugin} cell failed: {r['error']}")
    return recs, wall


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=4, help="iperf3 duration per round")
    ap.add_argument("--workloads", action="store_true", help="also bidir and download against iperf3 --bidir and -R")
    a = ap.parse_args()
    binary = peerbench_bin()
    if a.workloads:
        workloads(binary, a.rounds, a.seconds)
    tcp_i, tcp_p, udp_i, udp_p = [], [], [], []
    for r in range(a.rounds):
        tcp_i.append(iperf3(["-l", "16384"], a.seconds))
        recs, _ = peerbench(binary, "tcp", 200000, 16384)
        tcp_p.append(recs[0]["throughput_mbps"])
        udp_i.append(iperf3(["-u", "-b", "0", "-l", "1400"], a.seconds))
        recs, _ = peerbench(binary, "udp", 1000000, 1400)
        udp_p.append(recs[0]["throughput_mbps"])
        print(f"round {r + 1}: tcp iperf3 {tcp_i[-1]:.0f} / peerbench {tcp_p[-1]:.0f} Mbit/s; "
              f"udp iperf3 {udp_i[-1]:.0f} / peerbench {udp_p[-1]:.0f} Mbit/s", file=sys.stderr)

    # Per-cell overhead: 30 repetitions of a 100 x 128-byte TCP cell (no probes), each
    # cell's total_seconds minus its transfer (connect + bulk); and the whole process's
    # wall time per cell minus transfer, which adds start-up, manifest and CSV.
    recs, wall = peerbench(binary, "tcp", 100, 128, probes=0, reps=30)
    inner = [r["total_seconds"] - r["bulk_seconds"] - r["connect_ms"] / 1000 for r in recs]
    transfer = sum(r["bulk_seconds"] + r["connect_ms"] / 1000 for r in recs)

    med = statistics.median
    tcp_ratio, udp_ratio = med(tcp_p) / med(tcp_i), med(udp_p) / med(udp_i)
    print(f"TCP  16384-byte messages: iperf3 {med(tcp_i):8.0f} Mbit/s  peerbench {med(tcp_p):8.0f} Mbit/s  ratio {tcp_ratio:.2f}  (target >= 0.9)")
    print(f"UDP  1400-byte datagrams: iperf3 {med(udp_i):8.0f} Mbit/s  peerbench {med(udp_p):8.0f} Mbit/s  ratio {udp_ratio:.2f}  (target >= 0.9)")
    print(f"per-cell overhead, 100x128 B TCP: median {med(inner) * 1000:.2f} ms in the runner (target <= 20 ms); "
          f"{(wall - transfer) / len(recs) * 1000:.2f} ms per cell including process start-up")


def workloads(binary, rounds, seconds):
    """TCP bidir and download against iperf3 --bidir and -R, alternating rounds."""
    med = statistics.median
    bi_i, bi_p, dn_i, dn_p, p4_i, p4_p = [], [], [], [], [], []
    for r in range(rounds):
        bi_i.append(iperf3(["-l", "16384", "--bidir"], seconds))
        recs, _ = peerbench(binary, "tcp", 100000, 16384, workload="bidir")
        bi_p.append(recs[0]["throughput_mbps"])
        dn_i.append(iperf3(["-l", "16384", "-R"], seconds))
        recs, _ = peerbench(binary, "tcp", 200000, 16384, workload="download")
        dn_p.append(recs[0]["throughput_by_direction_mbps"]["down"])
        p4_i.append(iperf3(["-l", "16384", "-P", "4"], seconds))
        recs, _ = peerbench(binary, "tcp", 200000, 16384, workload={"name": "p4", "kind": "bulk", "streams": 4})
        p4_p.append(recs[0]["throughput_mbps"])
        print(f"round {r + 1}: bidir iperf3 {bi_i[-1]:.0f} / peerbench {bi_p[-1]:.0f} Mbit/s (both ways); "
              f"download iperf3 {dn_i[-1]:.0f} / peerbench {dn_p[-1]:.0f}; 4 streams iperf3 {p4_i[-1]:.0f} / peerbench {p4_p[-1]:.0f} Mbit/s",
              file=sys.stderr)
    print(f"TCP bidir, 16384-byte messages, sum of both ways: iperf3 {med(bi_i):8.0f} Mbit/s  peerbench {med(bi_p):8.0f} Mbit/s  ratio {med(bi_p) / med(bi_i):.2f}")
    print(f"TCP download (iperf3 -R):                         iperf3 {med(dn_i):8.0f} Mbit/s  peerbench {med(dn_p):8.0f} Mbit/s  ratio {med(dn_p) / med(dn_i):.2f}")
    print(f"TCP 4 parallel streams (iperf3 -P 4):             iperf3 {med(p4_i):8.0f} Mbit/s  peerbench {med(p4_p):8.0f} Mbit/s  ratio {med(p4_p) / med(p4_i):.2f}")


if __name__ == "__main__":
    main()
