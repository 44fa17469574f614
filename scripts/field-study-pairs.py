#!/usr/bin/env python3
"""The phones' slow tests: TCP and UDP twins that started in the same second, how often a
test was slow by message count and distance, and the round-trip tests offset by a wait.

    scripts/field-study-pairs.py [--data DIR] [--slow MBPS] [--offset MS]

Every transfer test's file name carries the second it started (`...-1.5.2025_11_38_53.csv`).
Pairs a TCP test with the UDP test of the same place, distance, count, size and second,
and prints how many pair, the rank correlation of the pairs' rates for 4 096 and 9 216 B
(Spearman, scipy), and the pairs in which either transport ran at `--slow` Mbit/s or
less (default 25). A slow state that both transports met at the same moment shows as
slow twins; one that only a transport's own stack had, as slow tests beside fast twins.
Then, per transport, message count and distance, the share of 4 096-9 216 B tests at
`--slow` or less (field and forest): a state met when a test starts hits short tests at
every distance, one of the link's range grows with distance. Last, TCP's round-trip
tests whose mean RTT lies more than `--offset` ms (default 40) above their place's
fastest test, by distance, with the median RTT SD of the offset tests and of the rest:
a wait that every probe of a test met shifts its mean and leaves its SD alone.
Also, per place x distance, the median rate of the 4 096-9 216 B tests above `--slow`
(the fast state, to hold against the emulated large transfers), and whether a slow test
is followed by another within its place and distance, in start order, more often than
chance: per transport, the count of slow-then-slow among consecutive tests against 2 000
seeded shuffles of the slow flags within each place x distance;
and the wait since the previous test of the place x distance started, slow tests against
fast (Mann-Whitney U): a link that slows after sitting idle would show as longer waits.
Reads only the calibration set (data/field-study-2025/tcp-rtt.csv, tcp-transfer.csv and
udp-transfer.csv). Exit status: 0 printed; 2 bad usage or unreadable input.
"""
import argparse
import math
import random
import statistics
import sys

from scipy.stats import mannwhitneyu, spearmanr

import fieldstudydata as data


def by_stamp(tests):
    """(stamp, place, distance, count, size) -> (rate or None, loss or None)."""
    return {(t["stamp"], t["scenario"], t["planned"], t["count"], t["size"]): (t["rate"], t["loss"])
            for t in tests if t["stamp"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=data.DATA)
    ap.add_argument("--slow", type=float, default=25, help="a rate at or below this is slow, Mbit/s")
    ap.add_argument("--offset", type=float, default=40, help="a round-trip test this much above its place's fastest is offset, ms")
    a = ap.parse_args()
    try:
        transfers = {transport: data.transfer_tests(transport, a.data) for transport in ("tcp", "udp")}
        rtts = data.rtt_tests(a.data)
    except (OSError, KeyError, ValueError) as e:
        print(f"field-study-pairs: cannot read the calibration set in {a.data}: {e}", file=sys.stderr)
        sys.exit(2)
    tcp, udp = by_stamp(transfers["tcp"]), by_stamp(transfers["udp"])
    paired = sorted(k for k in tcp if k in udp)
    print(f"{len(tcp)} TCP and {len(udp)} UDP transfer tests; {len(paired)} pairs started in the same second")
    large = [(tcp[k][0], udp[k][0], k) for k in paired if k[4] >= 4096 and tcp[k][0] and udp[k][0]]
    rho = spearmanr([math.log(t) for t, _, _ in large], [math.log(u) for _, u, _ in large])
    print(f"4 096-9 216 B: {len(large)} pairs, Spearman rho {rho.statistic:.2f} (p {rho.pvalue:.1e}) between their rates")
    slow = [(t, u, k) for t, u, k in large if t <= a.slow or u <= a.slow]
    both = sum(1 for t, u, _ in slow if t <= a.slow and u <= a.slow)
    print(f"pairs with a run at {a.slow:g} Mbit/s or less: {len(slow)}; both slow: {both}; "
          f"TCP slow {sum(1 for t, _, _ in large if t <= a.slow)}, UDP slow {sum(1 for _, u, _ in large if u <= a.slow)}")
    print("\n| place | distance (planned) | count | size | started | TCP Mbit/s | UDP Mbit/s | UDP loss % |")
    print("|---|---|---|---|---|---|---|---|")
    for t, u, k in slow:
        print(f"| {k[1]} | {k[2]} | {k[3]} | {k[4]} | {k[0]} | {t:.0f} | {u:.0f} | {'-' if udp[k][1] is None else format(udp[k][1], 'g')} |")
    shares(transfers, a.slow)
    fast_state(transfers, a.slow)
    persistence(transfers, a.slow)
    idle_before(transfers, a.slow)
    offsets(rtts, a.offset)


def shares(transfers, slow):
    """The share of slow 4 096-9 216 B tests per transport x count x distance, field and forest."""
    distances = sorted({t["distance"] for ts in transfers.values() for t in ts})
    print(f"\n4 096-9 216 B tests at {slow:g} Mbit/s or less, free field and forest")
    print("\n| transport | count | " + " | ".join(f"{d} m" for d in distances) + " |")
    print("|---|---|" + "---|" * len(distances))
    for transport, tests in transfers.items():
        for count in sorted({t["count"] for t in tests}):
            cells = []
            for d in distances:
                rates = [t["rate"] for t in tests if t["count"] == count and t["distance"] == d and t["size"] >= 4096
                         and t["place"] in ("free-field", "forest") and t["rate"] is not None]
                cells.append(f"{sum(r <= slow for r in rates)} of {len(rates)}")
            print(f"| {transport} | {count} | " + " | ".join(cells) + " |")


def large(tests):
    """The 4 096-9 216 B tests of the free field and the forest that have a rate."""
    return [t for t in tests if t["size"] >= 4096 and t["place"] in ("free-field", "forest") and t["rate"] is not None]


def fast_state(transfers, slow):
    """Per transport x place x distance: the median of the large tests above `slow`."""
    print(f"\n4 096-9 216 B tests above {slow:g} Mbit/s (the fast state), median Mbit/s")
    print("\n| transport | place | distance | tests | median |")
    print("|---|---|---|---|---|")
    for transport, tests in transfers.items():
        for place, d in sorted({(t["place"], t["distance"]) for t in large(tests)}):
            rates = [t["rate"] for t in large(tests) if (t["place"], t["distance"]) == (place, d) and t["rate"] > slow]
            print(f"| {transport} | {place} | {d} m | {len(rates)} | {statistics.median(rates):.0f} |")


def seconds(stamp):
    """`1.5.2025_11_38_53` -> seconds since that day's midnight."""
    h, m, s = (int(x) for x in stamp.split("_")[1:])
    return h * 3600 + m * 60 + s


def persistence(transfers, slow, shuffles=2000):
    """Slow-then-slow among consecutive large tests of 100 and 1 000 messages (the short
    ones, which a state met at the start covers), against shuffles within each session."""
    print(f"\nDoes a slow test (at {slow:g} Mbit/s or less; 4 096-9 216 B, 100 and 1 000 messages) follow a slow one?")
    print("\n| transport | tests | slow | consecutive pairs | slow then slow | p (shuffled) |")
    print("|---|---|---|---|---|---|")
    rng = random.Random(1)
    for transport, tests in transfers.items():
        sessions = {}
        for t in large(tests):
            if t["stamp"] and t["count"] <= 1000:
                sessions.setdefault((t["place"], t["distance"]), []).append((seconds(t["stamp"]), t["rate"] <= slow))
        runs = [sorted(v) for v in sessions.values()]

        def count(flags_by_run):
            pairs = both = 0
            for run, flags in zip(runs, flags_by_run):
                for i in range(1, len(run)):
                    pairs += 1
                    both += flags[i - 1] and flags[i]
            return pairs, both

        observed = [[f for _, f in run] for run in runs]
        pairs, both = count(observed)
        as_many = 0
        for _ in range(shuffles):
            shuffled = [rng.sample(flags, len(flags)) for flags in observed]
            as_many += count(shuffled)[1] >= both
        n = sum(len(r) for r in runs)
        print(f"| {transport} | {n} | {sum(sum(f) for f in observed)} | {pairs} | {both} | {as_many / shuffles:.2f} |")


def idle_before(transfers, slow):
    """Seconds since the previous test of the same place x distance started (either
    transport), for the short large tests, slow against fast."""
    starts = {}
    for tests in transfers.values():
        for t in tests:
            if t["stamp"]:
                starts.setdefault((t["place"], t["distance"]), set()).add(seconds(t["stamp"]))
    waits = {True: [], False: []}
    for tests in transfers.values():
        for t in large(tests):
            if not t["stamp"] or t["count"] > 1000:
                continue
            at = seconds(t["stamp"])
            earlier = [s for s in starts[(t["place"], t["distance"])] if s < at]
            if earlier:
                waits[t["rate"] <= slow].append(at - max(earlier))
    u = mannwhitneyu(waits[True], waits[False])
    print("\nSeconds since the previous test started (4 096-9 216 B, 100 and 1 000 messages, both transports)")
    print("\n| tests | n | median | range |")
    print("|---|---|---|---|")
    for label, key in (("slow", True), ("fast", False)):
        w = waits[key]
        print(f"| {label} | {len(w)} | {statistics.median(w):g} | {min(w)}-{max(w)} |")
    print(f"\nMann-Whitney U {u.statistic:g}, p {u.pvalue:.2f}")


def offsets(rtts, offset):
    """TCP's round-trip tests offset by more than `offset` ms from their place's fastest, per distance."""
    fastest = {}
    for t in rtts:
        fastest[t["place"]] = min(fastest.get(t["place"], math.inf), t["mean_ms"])
    late = [t for t in rtts if t["mean_ms"] > fastest[t["place"]] + offset]
    rest = [t for t in rtts if t["mean_ms"] <= fastest[t["place"]] + offset]
    print(f"\nTCP round-trip tests with a mean more than {offset:g} ms above their place's fastest test")
    print("\n| distance | offset tests | their mean RTT, ms | their RTT SD (median), ms | the others' RTT SD (median), ms |")
    print("|---|---|---|---|---|")
    for d in sorted({t["distance"] for t in rtts}):
        here = [t for t in rtts if t["distance"] == d]
        mine = [t for t in late if t["distance"] == d]
        others = [t["sd_ms"] for t in rest if t["distance"] == d]
        means = f"{min(t['mean_ms'] for t in mine):.0f}-{max(t['mean_ms'] for t in mine):.0f}" if mine else "-"
        sd = f"{statistics.median(t['sd_ms'] for t in mine):.1f}" if mine else "-"
        print(f"| {d} m | {len(mine)} of {len(here)} | {means} | {sd} | {statistics.median(others):.1f} |")


if __name__ == "__main__":
    main()
