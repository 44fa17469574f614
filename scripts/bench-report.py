#!/usr/bin/env python3
"""Time and peak memory of `peerbench report` on large runs (docs/REPORT.md, "Scale").

    scripts/bench-report.py [--records 200000] [--reference 20000] [--peerbench PATH] [--ref PATH] [--rounds N]

Writes synthetic run folders (records.jsonl in the record schema, samples.jsonl with
20 RTT probes and a 5-interval bulk series per cell, manifest.json) of REFERENCE and
RECORDS cells, runs `peerbench report` on each and prints wall time, CPU time (with
the renderer's) and the peak resident memory of the peerbench process (VmHWM, sampled
every 20 ms), then the
ratios large/reference: memory that grows far less than the record count is bounded
by the condensed data, not by the files. DuckDB then groups the large run's records and
probes (scripts/duckdb-reference.py report) and the ratio of wall times is printed. The release binary is built unless --peerbench
names one. The chart renderer's own time is part of the wall time (the JavaScript bundle
comes from its cache after the first run). With --ref PATH (an older build), the large run
is measured with it too, --rounds times alternating with this build, and the ratios printed.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ENVIRONMENTS = [("underground", [1, 10, 30, "max"]), ("inner-city", [1, 10, 30, "max"]),
                ("free-field", [1, 10, 30, "max"]), ("forest", [1, 10, 30, "max"])]
PAYLOADS = [(c, s) for c in (100, 1000, 10000, 100000) for s in (128, 4096, 16384)]
TRANSPORTS = ["tcp", "tcp-nodelay", "udp", "quic"]


def write_run(folder, n):
    """The field study's matrix (192 scenarios x 4 transports), repeated until n records."""
    os.makedirs(folder, exist_ok=True)
    scenarios = [(e, d, p) for e, ds in ENVIRONMENTS for d in ds for p in PAYLOADS]
    run_id = "20261123T000000Z-bench"
    with open(os.path.join(folder, "records.jsonl"), "w") as rec, open(os.path.join(folder, "samples.jsonl"), "w") as smp:
        for i in range(n):
            e, d, (count, size) = scenarios[(i // len(TRANSPORTS)) % len(scenarios)]
            label = TRANSPORTS[i % len(TRANSPORTS)]
            rep = i // (len(TRANSPORTS) * len(scenarios)) + 1
            cell_id = "%016x" % (i % (len(TRANSPORTS) * len(scenarios)))
            metres = 200.0 if d == "max" else float(d)
            tput = 30.0 * (1 - metres / 400) + (i % 7) * 0.1
            rtt = 2.0 + metres / 50 + (i % 5) * 0.01
            record = {
                "schema": "peerbench.record/1", "run_id": run_id, "cell_id": cell_id, "repetition": rep, "seed": i,
                "transport": {"plugin": label.split("-")[0], "label": label, "options": {}},
                "environment": e, "distance_m": metres, "distance_label": str(d), "payload": {"count": count, "size": size},
                "link": {"mode": "emulated", "delay_ms": 1, "jitter_ms": 0.3, "loss_percent": 0, "rate_mbps": 300, "mtu": 1484,
                         "rssi_dbm": -56.8, "snr_db": 31.2, "mcs": 6, "phy_rate_mbps": 526.6, "packets_up": 36,
                         "packets_down": 30, "bytes_up": 15559, "bytes_down": 1942, "drops_up": 0, "drops_down": 0},
                "status": "ok" if i % 97 else "timeout", "error": None if i % 97 else "cell did not finish within 60 s",
                "started_at": "2026-11-23T01:56:38.226Z", "connect_ms": rtt * 1.5, "bulk_seconds": 0.5, "total_seconds": 1.2,
                "rtt_ms": {"count": 20, "min": rtt * 0.6, "mean": rtt, "p50": rtt, "p90": rtt * 1.3, "p99": rtt * 1.5,
                           "max": rtt * 1.6, "stddev": 0.3},
                "jitter_ms": {"ipdv_mean": 0.4, "rfc3550": None}, "throughput_mbps": tput,
                "delivery": {"sent_messages": count, "received_messages": count, "sent_bytes": count * size,
                             "received_bytes": count * size, "loss_ratio": 0, "reordered": 0, "duplicated": 0},
                "extra": {"tcp": {"retransmits": 0, "snd_cwnd": 41}},
            }
            rec.write(json.dumps(record, separators=(",", ":")) + "\n")
            smp.write(json.dumps({
                "schema": "peerbench.samples/1", "run_id": run_id, "cell_id": cell_id, "repetition": rep,
                "rtt_ns": [int((rtt + k * 0.05) * 1e6) for k in range(20)], "rtt_loaded_ns": None,
                "bulk_series": {"interval_ns": 100000000, "bytes": [int(tput * 12500 * (0.9 + k * 0.02)) for k in range(5)],
                                "datagrams": None},
                "ranging": None}, separators=(",", ":")) + "\n")
    with open(os.path.join(folder, "manifest.json"), "w") as f:
        json.dump({"schema": "peerbench.manifest/1", "run_id": run_id, "matrix_hash": "bench", "link_mode": "emulated",
                   "seed": 1, "cells_total": n, "command_line": ["peerbench", "run", "matrix.json"],
                   "versions": {"peerbench": "0.1.0"}}, f)


def measure(peerbench, folder, out):
    start = time.monotonic()
    p = subprocess.Popen([peerbench, "report", folder, "--out", out], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak_kb = 0
    status_path = f"/proc/{p.pid}/status"
    while True:
        # wait4 gives this child's CPU time (and that of the renderer it waited for).
        pid, status, usage = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        try:
            with open(status_path) as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        peak_kb = max(peak_kb, int(line.split()[1]))
        except OSError:
            pass
        time.sleep(0.02)
    wall = time.monotonic() - start
    err = p.stderr.read().decode()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"bench-report: peerbench report {folder} failed ({status}):\n{err}")
    return wall, usage.ru_utime + usage.ru_stime, peak_kb / 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--records", type=int, default=200_000)
    ap.add_argument("--reference", type=int, default=20_000)
    ap.add_argument("--peerbench", help="binary to measure (default: build and use .build/release/peerbench)")
    ap.add_argument("--ref", help="an older binary to measure on the large run as well, alternating with this one")
    ap.add_argument("--rounds", type=int, default=1, help="with --ref: how many times each is measured on the large run")
    args = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    peerbench = args.peerbench
    if not peerbench:
        subprocess.run(["swift", "build", "-c", "release", "--product", "peerbench"], cwd=root, check=True,
                       stdout=subprocess.DEVNULL)
        peerbench = os.path.join(root, ".build", "release", "peerbench")
    python = subprocess.run([os.path.join(root, "scripts", "duckdb-env.sh")], check=True, capture_output=True, text=True).stdout.strip()
    work = tempfile.mkdtemp(prefix="peerbench-bench-report-")
    try:
        load = open("/proc/loadavg").read().split()[:3]
        print(f"# {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}, {os.cpu_count()} cores, load {' '.join(load)}")
        results = {}
        for n in (args.reference, args.records):
            folder = os.path.join(work, f"run-{n}")
            write_run(folder, n)
            size_mb = sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder)) / 1e6
            measure(peerbench, folder, os.path.join(work, "warm.html"))  # fills the renderer's bundle cache
            wall, cpu, rss = measure(peerbench, folder, os.path.join(work, f"report-{n}.html"))
            results[n] = (wall, cpu, rss)
            print(f"{n:>8} records  {size_mb:8.1f} MB of JSONL  report {wall:6.2f} s wall, {cpu:6.2f} s CPU  "
                  f"peerbench peak RSS {rss:7.1f} MiB")
        (t0, c0, m0), (t1, c1, m1) = results[args.reference], results[args.records]
        print(f"ratio {args.records // args.reference}x records: wall x{t1 / t0:.2f}, CPU x{c1 / c0:.2f}, peak RSS x{m1 / m0:.2f}")
        # DuckDB's grouping of the same large run (records and every RTT probe), in the same run.
        folder = os.path.join(work, f"run-{args.records}")
        duck = subprocess.run([python, os.path.join(root, "scripts", "duckdb-reference.py"), "report",
                               os.path.join(folder, "records.jsonl"), os.path.join(folder, "samples.jsonl")],
                              check=True, capture_output=True, text=True).stdout.split()
        dwall, dcpu = float(duck[3]), float(duck[5])
        print(f"duckdb   {args.records:>8} records  grouping {dwall:6.2f} s wall, {dcpu:6.2f} s CPU")
        print(f"ratio report/duckdb: wall {t1 / dwall:.2f}")
        if args.ref:
            for r in range(args.rounds):
                rw, rc, rr = measure(args.ref, folder, os.path.join(work, "report-ref.html"))
                w, c, m = measure(peerbench, folder, os.path.join(work, f"report-{args.records}.html"))
                print(f"round {r + 1}: reference {rw:6.2f} s wall, {rc:6.2f} s CPU, {rr:7.1f} MiB; "
                      f"this {w:6.2f} s wall, {c:6.2f} s CPU, {m:7.1f} MiB; ratio this/reference wall {w / rw:.2f}, CPU {c / rc:.2f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
