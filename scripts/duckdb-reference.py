#!/usr/bin/env python3
"""DuckDB doing a peerbench analysis command's reading work on the same files, timed:
the reference scripts/bench-compare.sh, bench-merge.sh and bench-report.py print beside
peerbench's own time, as a ratio (docs/PERFORMANCE.md, "Analysis against DuckDB").

    duckdb-reference.py compare RECORDS.jsonl
        read every record, group by scenario (environment, distance, payload) and
        transport label: count, median and 2.5/97.5 % quantiles of throughput, RTT p50/p99,
        jitter, loss and connect time (what compare summarises before its tests).
    duckdb-reference.py merge OUT_DIR SHARD.jsonl...
        read the shards, drop exact duplicates, write OUT_DIR/records.jsonl and a flat
        OUT_DIR/records.csv (what merge writes).
    duckdb-reference.py report RECORDS.jsonl [SAMPLES.jsonl]
        the compare grouping plus, with samples, each scenario and label's RTT quantiles
        over every probe (what report condenses).

Prints one line: "duckdb WORK wall SECONDS cpu SECONDS". Run with the virtual
environment's Python that scripts/duckdb-env.sh prepares.
"""
import os
import sys
import time

import duckdb

METRICS = {
    "throughput_mbps": "throughput_mbps",
    "rtt_p50_ms": "rtt_ms.p50",
    "rtt_p99_ms": "rtt_ms.p99",
    "jitter_ms": "jitter_ms.ipdv_mean",
    "loss_ratio": "delivery.loss_ratio",
    "connect_ms": "connect_ms",
}


def grouping(records):
    aggregates = ",\n  ".join(
        f"count({expr}) AS {name}_n, median({expr}) AS {name}_median, "
        f"quantile_cont({expr}, [0.025, 0.975]) AS {name}_interval"
        for name, expr in METRICS.items())
    return f"""
SELECT environment, distance_label, payload.count AS count, payload.size AS size, transport.label AS label,
  {aggregates}
FROM read_json('{records}', format = 'newline_delimited', maximum_object_size = 16777216)
WHERE status = 'ok'
GROUP BY ALL
"""


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("compare", "merge", "report"):
        sys.exit(__doc__)
    work, args = sys.argv[1], sys.argv[2:]
    con = duckdb.connect()
    wall, cpu = time.perf_counter(), time.process_time()
    if work == "compare":
        rows = con.execute(grouping(args[0])).fetchall()
        what = f"{len(rows)} groups"
    elif work == "merge":
        out, shards = args[0], args[1:]
        os.makedirs(out, exist_ok=True)
        files = "[" + ", ".join(f"'{s}'" for s in shards) + "]"
        con.execute(f"CREATE TABLE merged AS SELECT DISTINCT * FROM read_json({files}, format = 'newline_delimited', "
                    "maximum_object_size = 16777216)")
        con.execute(f"COPY merged TO '{out}/records.jsonl' (FORMAT json)")
        con.execute(f"COPY (SELECT * EXCLUDE (extra) FROM merged) TO '{out}/records.csv' (FORMAT csv, HEADER)")
        what = f"{con.execute('SELECT count(*) FROM merged').fetchone()[0]} records"
    else:
        rows = con.execute(grouping(args[0])).fetchall()
        what = f"{len(rows)} groups"
        if len(args) > 1:
            probes = con.execute(f"""
SELECT r.environment, r.distance_label, r.transport.label, quantile_cont(p, [0.5, 0.9, 0.99])
FROM read_json('{args[0]}', format = 'newline_delimited') r
JOIN (SELECT run_id, cell_id, repetition, unnest(rtt_ns) AS p FROM read_json('{args[1]}', format = 'newline_delimited')) s
  USING (run_id, cell_id, repetition)
GROUP BY ALL""").fetchall()
            what += f", {len(probes)} RTT distributions"
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(f"duckdb {work} wall {wall:.2f} cpu {cpu:.2f} ({what})")


if __name__ == "__main__":
    main()
