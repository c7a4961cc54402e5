"""The report of `bench/netio.sh rx`: per protocol, block size and direction,
netio's and warpdrv's figures over the rounds (the median and the range), the
ratio warpdrv/netio, the spread of that ratio from round to round, and a
verdict against a tolerance of 5%.

    netio_rx_report.py DIR ROUNDS NETIO VERSION LOAD

DIR holds, for each protocol P (t, u), round K (1..ROUNDS) and size set S
(`all`, or one block size such as `8k`), netio-P-K-S.json (netio's printed
lines as `warpdrv --json bench import` gives them) and wd-P-K-S.json
(`warpdrv --json bench client`): the documents docs/json.md describes (each
of `results` with `block_name`, `tx` and `rx`, each with `bytes_per_second`).
tests/e2e/test_bench.sh reads made-up and real documents with it.

The two programs run one after the other in each round, so each round gives
one ratio per cell, taken under the same load; the spread of those ratios is
their interquartile range (the medians of the lower and the upper half, the
middle round left out of both when the count is odd; with fewer than 4 rounds,
the lowest and the highest). The verdict reads that middle half: "within 5%"
when all of it lies within 0.95..1.05, "behind" or "ahead" when all of it lies
beyond, and "within the spread" when it straddles 0.95 or 1.05: the rounds do
not tell."""
import glob
import json
import os
import sys

TOL = 0.05
MIB = 1048576.0
SIZES = ["1k", "2k", "4k", "8k", "16k", "32k"]


def median(v):
    s = sorted(v)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def spread(v):
    """(median, min, max, q1, q3) of the values, as netbench/bench_spread.c."""
    s = sorted(v)
    n = len(s)
    if n < 4:
        q1, q3 = s[0], s[-1]
    else:
        q1, q3 = median(s[:n // 2]), median(s[(n + 1) // 2:])
    return median(s), s[0], s[-1], q1, q3


def verdict(q1, q3, tol=TOL):
    if q1 >= 1 - tol and q3 <= 1 + tol:
        return "within %d%%" % round(tol * 100)
    if q3 < 1 - tol:
        return "behind"
    if q1 > 1 + tol:
        return "ahead"
    return "within the spread"


def figures(tmp, prog, proto, rnd):
    """{(block_name, 'Rx'|'Tx'): MByte/s} of one program's runs in a round."""
    out = {}
    for path in sorted(glob.glob(os.path.join(tmp, "%s-%s-%d-*.json" % (prog, proto, rnd)))):
        with open(path) as f:
            d = json.load(f)
        for r in d["results"]:
            name = r["block_name"].strip()
            out[(name, "Rx")] = r["rx"]["bytes_per_second"] / MIB
            out[(name, "Tx")] = r["tx"]["bytes_per_second"] / MIB
    return out


def main():
    tmp, rounds, netio, version, load = (sys.argv[1], int(sys.argv[2]), sys.argv[3],
                                         sys.argv[4], sys.argv[5])
    print("A veth pair between two network namespaces; netio %s (%s) and warpdrv, each "
          "client against its own server; %d rounds, the order alternating"
          % (version or "?", netio, rounds))
    print("MByte/s (1048576 bytes): the median of the rounds (lowest-highest). Rx: the "
          "client receives; Tx: the server receives.")
    print("wd/netio: the ratio of the medians; spread: the middle half of the rounds' own "
          "ratios; verdict against %d%%." % round(TOL * 100))
    print()
    print("| proto | size | dir | netio | warpdrv | wd/netio | spread | verdict |")
    print("|---|---|---|---|---|---|---|---|")
    counts = {}
    cells = []
    for proto, pname in (("t", "TCP"), ("u", "UDP")):
        n = [figures(tmp, "netio", proto, k) for k in range(1, rounds + 1)]
        w = [figures(tmp, "wd", proto, k) for k in range(1, rounds + 1)]
        keys = set()
        for x in n + w:
            keys.update(x)
        for size in sorted({k[0] for k in keys}, key=lambda s: SIZES.index(s) if s in SIZES else 99):
            for dirn in ("Rx", "Tx"):
                key = (size, dirn)
                pairs = [(a[key], b[key]) for a, b in zip(n, w) if key in a and key in b and a[key] > 0]
                if not pairs:
                    continue
                nm, nlo, nhi, _, _ = spread([p[0] for p in pairs])
                wm, wlo, whi, _, _ = spread([p[1] for p in pairs])
                _, rlo, rhi, q1, q3 = spread([p[1] / p[0] for p in pairs])
                v = verdict(q1, q3)
                counts[v] = counts.get(v, 0) + 1
                cells.append((pname, size, dirn, wm / nm, v))
                print("| %s | %s | %s | %.1f (%.1f-%.1f) | %.1f (%.1f-%.1f) | %.2f | %.2f-%.2f | %s |"
                      % (pname, size, dirn, nm, nlo, nhi, wm, wlo, whi, wm / nm, q1, q3, v))
    print()
    print("cells: %s" % ", ".join("%d %s" % (c, v) for v, c in sorted(counts.items())))
    out = [c for c in cells if not c[4].startswith("within")]
    if out:
        print("beyond %d%%: %s" % (round(TOL * 100), ", ".join("%s %s %s %.2f (%s)" % c for c in out)))
    print("load average: %s" % load)
    return 0


if __name__ == "__main__":
    sys.exit(main())
