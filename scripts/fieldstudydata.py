"""The field study's published tests (data/field-study-2025/), read once for every script.

Imported by fit-field-study.py, field-study-checks.py and field-study-pairs.py, which
sit in the same folder. Only the calibration set is here: TCP's round-trip tests and
both transports' transfer tests. The UDP round trips and every QUIC figure are the
held-back validation set and have no reader.
"""
import csv
import os
import re
import statistics

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "data", "field-study-2025")

# The study's place names, as PeerBench's built-in environments call them.
PLACES = {"Field": "free-field", "Forest": "forest", "Inner City": "inner-city", "Underground": "underground"}

# The second a test started, from its file name (`...-1.5.2025_11_38_53.csv`).
STAMP = re.compile(r"(\d+\.\d+\.\d{4}_\d+_\d+_\d+)")


def number(text):
    """A CSV number, or None for a malformed one (one UDP row reads `8.650.004883`)."""
    try:
        return float(text)
    except ValueError:
        return None


def quartiles(values):
    """q1, median, q3 (type 7, as `compare --measured` computes them)."""
    if len(values) == 1:
        return values[0], values[0], values[0]
    q = statistics.quantiles(values, n=4, method="inclusive")
    return q[0], q[1], q[2]


def _rows(data_dir, name):
    path = os.path.join(data_dir, name)
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def rtt_tests(data_dir=DATA):
    """TCP's round-trip tests: dicts of place, distance, mean_ms, sd_ms."""
    return [{"place": PLACES[r["Scenario"]], "distance": int(r["distance_m"]),
             "mean_ms": float(r["Average RTT (ms)"]), "sd_ms": float(r["Jitter (ms)"])}
            for r in _rows(data_dir, "tcp-rtt.csv")]


def transfer_tests(transport, data_dir=DATA):
    """`transport`'s ("tcp" or "udp") transfer tests: dicts of place, scenario, distance
    (measured, m), planned (the distance the study planned, m: 30 for the measured 5), count, size, rate (Mbit/s) and loss (%), each None where the row's text is malformed,
    and stamp (the second it started, None if the file name has none)."""
    tests = []
    for r in _rows(data_dir, f"{transport}-transfer.csv"):
        m = STAMP.search(r["file"])
        tests.append({
            "place": PLACES[r["Scenario"]], "scenario": r["Scenario"], "distance": int(r["distance_m"]),
            "planned": int(r["Distance (m)"]), "count": int(r["Number of Packages"]), "size": int(r["Package Size (Bytes)"]),
            "rate": number(r["Transfer Speed (Mbps)"]), "loss": number(r["Package Loss (%)"]),
            "stamp": m.group(1) if m else None,
        })
    return tests
