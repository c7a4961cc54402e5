"""The report of `bench/netio.sh rx`: per protocol and block size, the
medians over the rounds of each side's receive rate, netio's and warpdrv's,
and the ratio warpdrv/netio of each receiving side.

    netio_rx_report.py DIR ROUNDS NETIO VERSION LOAD

DIR holds, for each protocol P (t, u) and round K (1..ROUNDS), netio-P-K.json
(netio's printed lines as `warpdrv --json bench import` gives them) and
wd-P-K.json (`warpdrv --json bench client`): the documents docs/json.md
describes (each of `results` with `block_name`, `tx` and `rx`, each with
`bytes_per_second`). tests/e2e/test_bench.sh reads real documents with it."""
import json
import os
import statistics
import sys

tmp, rounds, netio, version, load = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
MIB = 1048576.0


def rows(name):
    with open(os.path.join(tmp, name + ".json")) as f:
        d = json.load(f)
    return {r["block_name"]: (r["tx"]["bytes_per_second"] / MIB, r["rx"]["bytes_per_second"] / MIB)
            for r in d["results"]}


worst = None
print("a veth pair between two network namespaces; netio %s (%s); medians of %d alternating rounds"
      % (version or "?", netio, rounds))
print("MByte/s (1048576 bytes); Rx: server to client (the client receives), Tx: client to server")
for proto, name in (("t", "TCP"), ("u", "UDP")):
    n = [rows("netio-%s-%d" % (proto, k)) for k in range(1, rounds + 1)]
    w = [rows("wd-%s-%d" % (proto, k)) for k in range(1, rounds + 1)]
    print("  %s  %4s  %9s %9s  %9s %9s  %8s %8s" % (name, "size", "netio Rx", "wd Rx", "netio Tx",
          "wd Tx", "Rx ratio", "Tx ratio"))
    for size in n[0]:
        def med(runs, i):
            return statistics.median(x[size][i] for x in runs if size in x)
        nrx, wrx, ntx, wtx = med(n, 1), med(w, 1), med(n, 0), med(w, 0)
        a, b = wrx / nrx, wtx / ntx
        worst = min(worst if worst is not None else a, a, b)
        print("  %s  %4s  %9.2f %9.2f  %9.2f %9.2f  %8.2f %8.2f" % (name, size, nrx, wrx, ntx,
              wtx, a, b))
print("lowest ratio warpdrv/netio of a receiving side: %.2f (aim: 1 or more)" % worst)
print("load average at the end: %s" % load)
