#!/bin/sh
# warpdrv bench beside iperf3 (Debian's) and, when NETIO names a netio 1.3x
# binary, beside netio itself, over loopback in one run:
#  1. warpdrv's client against warpdrv's server, every block size (TCP);
#  2. iperf3 with netio's 32k write size (32767 bytes), both directions, and
#     -w 128K for netio's socket buffers; prints warpdrv Rx / iperf3 -R;
#  3. with NETIO set: netio against itself, warpdrv's client against netio's
#     server and netio's client against warpdrv's server, and warpdrv's ratio
#     to netio per block size and direction (the receiving side is the one
#     that counts: warpdrv's client receives Rx, its server receives Tx).
#   bench/netio.sh [SECONDS]      (default 6, netio's length per direction)
# Environment: WARPDRV (the program; default build/warpdrv, built if missing),
# NETIO (a netio 1.3x binary; optional), VETH=1 (as root: across two network
# namespaces joined by a veth pair, 10.231.77.1 and .2, instead of loopback;
# the servers run in one, the clients in the other, all removed at the end).
# Exit status: 0 ratio to iperf3 at or above 0.9, 1 below it or a step failed.
#
#   bench/netio.sh rx [ROUNDS]
# The receive path against netio's own (as root: always across a veth pair
# between two network namespaces): netio's client against netio's server and
# warpdrv's client against warpdrv's server, TCP and UDP, every block size,
# ROUNDS rounds (default 5), the order of the two alternating from round to
# round and protocol to protocol. Prints per protocol, block size and
# direction (Rx: the client receives; Tx: the server receives) netio's and
# warpdrv's medians with their range (lowest-highest), the ratio
# warpdrv/netio with the interquartile range of the rounds' own ratios (each
# round pairs the two programs run one after the other), and a verdict: within
# 5%, behind, ahead, or "within the spread" when the middle half of the
# rounds' ratios straddles 0.95 or 1.05 (netio_rx_report.py). netio 1.33 (or
# 1.34, the same receive path) is built from its public source in NETIO_SRC
# (a folder holding netio.c and its Makefile; nothing of it is kept), or
# NETIO names a binary; with neither, the comparison is skipped with a
# message (exit 0). SIZES="8k 32k" measures those sizes alone (netio -b, one
# run per size), PROTOS="t" TCP alone. netio's period is its own, 6 s per
# direction and size: a round of every size and both protocols takes about
# 5 minutes (2 protocols x 2 programs x 72 s). Placement (taskset): PIN=same
# (the default) runs both programs' servers and clients on CPU 0, PIN=split
# the servers on CPU 0 and the clients on CPU 1, PIN=none leaves it to the
# scheduler, whose choice from run to run puts a round in one of two groups
# (docs/bench.md, the tenth round).
set -eu
if [ "${1:-}" = rx ]; then
	rounds=${2:-5}
	sizes=${SIZES:-all}
	protos=${PROTOS:-t u}
	top=$(cd "$(dirname "$0")/.." && pwd)
	wd=${WARPDRV:-$top/build/warpdrv}
	[ -x "$wd" ] || make -C "$top" --no-print-directory "build/warpdrv" >/dev/null
	tmp=$(mktemp -d)
	pids="" nsa="" nsb=""
	cleanup() {
		for p in $pids; do kill "$p" 2>/dev/null || :; done
		[ -z "$nsa" ] || ip netns del "$nsa" 2>/dev/null || :
		[ -z "$nsb" ] || ip netns del "$nsb" 2>/dev/null || :
		rm -rf "$tmp"
	}
	trap cleanup EXIT INT TERM
	netio=${NETIO:-}
	if [ -z "$netio" ] && [ -n "${NETIO_SRC:-}" ] && [ -f "$NETIO_SRC/netio.c" ]; then
		mkdir "$tmp/netio-src"
		cp -R "$NETIO_SRC/." "$tmp/netio-src/"
		make -C "$tmp/netio-src" linux >"$tmp/netio-build.log" 2>&1 ||
			{ echo "bench/netio.sh: netio did not build:" >&2; cat "$tmp/netio-build.log" >&2; exit 1; }
		netio="$tmp/netio-src/netio"
	fi
	if [ -z "$netio" ]; then
		echo "bench/netio.sh rx: netio is not present (NETIO_SRC=DIR of its public source," \
			"or NETIO=BINARY): the comparison with netio's own receive path is skipped"
		exit 0
	fi
	nsa="wdrxA-$$" nsb="wdrxB-$$"
	ip netns add "$nsa" && ip netns add "$nsb" &&
		ip link add wdr0-$$ netns "$nsa" type veth peer name wdr1-$$ netns "$nsb" || {
		echo "bench/netio.sh rx: needs root and network namespaces (ip netns)" >&2
		exit 1
	}
	ip -n "$nsa" addr add 10.231.78.1/24 dev wdr0-$$
	ip -n "$nsb" addr add 10.231.78.2/24 dev wdr1-$$
	for ns in "$nsa" "$nsb"; do ip -n "$ns" link set lo up; done
	ip -n "$nsa" link set wdr0-$$ up
	ip -n "$nsb" link set wdr1-$$ up
	host=10.231.78.1
	port=18767
	# Where each end runs: the two programs' ends on the same CPUs, so that a
	# round does not land in one group or another by where the scheduler
	# happens to put the ends (docs/bench.md, the tenth round).
	pin=${PIN:-same}
	[ "$pin" != split ] || [ "$(nproc)" -ge 2 ] || pin=same
	case $pin in
	split) pin_srv="taskset -c 0" pin_cli="taskset -c 1" ;;
	same) pin_srv="taskset -c 0" pin_cli="taskset -c 0" ;;
	none) pin_srv="" pin_cli="" ;;
	*) echo "bench/netio.sh rx: PIN=$pin: expected split, same or none" >&2; exit 2 ;;
	esac
	version=$("$netio" 2>&1 | sed -n 's/.*Version \([0-9.]*\).*/\1/p' | head -1)
	# shellcheck disable=SC2086 # $pin_srv is a command and its options, or nothing
	ip netns exec "$nsa" $pin_srv "$netio" -s -p "$port" >"$tmp/netio-server.log" 2>&1 &
	pids="$pids $!"
	# shellcheck disable=SC2086
	ip netns exec "$nsa" $pin_srv "$wd" bench server --bind "$host" --port $((port + 10)) \
		--db "$tmp/server.db" >"$tmp/wd-server.log" 2>&1 &
	pids="$pids $!"
	sleep 1
	load0=$(cut -d' ' -f1-3 /proc/loadavg)
	run_netio() { # proto round size
		b=""
		[ "$3" = all ] || b="-b $3"
		# shellcheck disable=SC2086 # $b is one option and its value, or nothing
		ip netns exec "$nsb" $pin_cli "$netio" -"$1" $b -p "$port" "$host" \
			>"$tmp/netio-$1-$2-$3.txt" 2>&1
		"$wd" --json bench import --db "$tmp/import.db" --label "netio-$1-$2-$3" \
			"$tmp/netio-$1-$2-$3.txt" >"$tmp/netio-$1-$2-$3.json"
	}
	run_wd() { # proto round size
		b=""
		[ "$3" = all ] || b="-b $3"
		# shellcheck disable=SC2086
		ip netns exec "$nsb" $pin_cli "$wd" --json bench client "$host" -"$1" $b \
			--port $((port + 10)) --db "$tmp/client.db" >"$tmp/wd-$1-$2-$3.json"
	}
	r=1
	while [ "$r" -le "$rounds" ]; do
		k=0
		for proto in $protos; do
			for size in $sizes; do
				k=$((k + 1))
				if [ $(((r + k) % 2)) = 0 ]; then run_netio "$proto" "$r" "$size"; run_wd "$proto" "$r" "$size"
				else run_wd "$proto" "$r" "$size"; run_netio "$proto" "$r" "$size"; fi
			done
		done
		r=$((r + 1))
	done
	echo "Placement: PIN=$pin${pin_srv:+ (servers: $pin_srv; clients: $pin_cli)}"
	python3 "$top/bench/netio_rx_report.py" "$tmp" "$rounds" "$netio" "$version" \
		"$load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end"
	exit $?
fi
secs=${1:-6}
top=$(cd "$(dirname "$0")/.." && pwd)
wd=${WARPDRV:-$top/build/warpdrv}
netio=${NETIO:-}
if ! command -v iperf3 >/dev/null 2>&1; then
	echo "bench/netio.sh: iperf3 is missing; install it with: sudo apt-get install iperf3" >&2
	exit 1
fi
if ! command -v python3 >/dev/null 2>&1; then
	echo "bench/netio.sh: python3 is missing (it reads the JSON results); sudo apt-get install python3" >&2
	exit 1
fi
if [ -n "$netio" ] && ! [ -x "$netio" ]; then
	echo "bench/netio.sh: NETIO=$netio is not an executable netio 1.3x binary" >&2
	exit 1
fi
[ -x "$wd" ] || make -C "$top" --no-print-directory "build/warpdrv" >/dev/null

tmp=$(mktemp -d)
pids=""
nsa="" nsb=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null || :; done
	[ -z "$nsa" ] || ip netns del "$nsa" 2>/dev/null || :
	[ -z "$nsb" ] || ip netns del "$nsb" 2>/dev/null || :
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# Where the servers listen and how each side runs: loopback, or the pair.
host=127.0.0.1
srv="" cli=""
link="loopback"
if [ "${VETH:-}" = 1 ]; then
	nsa="wdbenchA-$$" nsb="wdbenchB-$$"
	ip netns add "$nsa" && ip netns add "$nsb" &&
		ip link add wdb0-$$ netns "$nsa" type veth peer name wdb1-$$ netns "$nsb" || {
		echo "bench/netio.sh: VETH=1 needs root and network namespaces (ip netns)" >&2
		exit 1
	}
	ip -n "$nsa" addr add 10.231.77.1/24 dev wdb0-$$
	ip -n "$nsb" addr add 10.231.77.2/24 dev wdb1-$$
	for ns in "$nsa" "$nsb"; do ip -n "$ns" link set lo up; done
	ip -n "$nsa" link set wdb0-$$ up
	ip -n "$nsb" link set wdb1-$$ up
	host=10.231.77.1
	srv="ip netns exec $nsa" cli="ip netns exec $nsb"
	link="a veth pair between two network namespaces"
fi

free_port() { python3 "$top/tests/http/free_port.py"; }

wait_for() { # file text: until the file holds the text (5 s at most)
	i=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		[ "$i" -lt 50 ] || { echo "bench/netio.sh: $1 never said '$2'" >&2; cat "$1" >&2; exit 1; }
		sleep 0.1
	done
}

wd_server() { # port
	$srv "$wd" bench server --bind "$host" --port "$1" --seconds "$secs" --db "$tmp/server-$1.db" \
		>"$tmp/server-$1.log" 2>&1 &
	pids="$pids $!"
	wait_for "$tmp/server-$1.log" '^Listening'
}

# netio's printed lines as warpdrv's JSON (the importer reads them).
netio_json() { # name
	"$wd" --json bench import --db "$tmp/import.db" --label "$1" "$tmp/$1.txt" >"$tmp/$1.json"
}

# 1. warpdrv against itself, every block size.
port=$(free_port)
wd_server "$port"
$cli "$wd" --json bench client "$host" --port "$port" --seconds "$secs" --db "$tmp/client.db" \
	>"$tmp/warpdrv.json"

# 2. iperf3: a one-off server per measurement, netio's 32k write size.
iperf() { # name, extra client options...
	name=$1
	shift
	p=$(free_port)
	$srv iperf3 -s -1 --forceflush -B "$host" -p "$p" >"$tmp/iperf-$name.log" 2>&1 &
	pids="$pids $!"
	wait_for "$tmp/iperf-$name.log" 'listening'
	$cli iperf3 -c "$host" -p "$p" -l 32767 -t "$secs" -J "$@" >"$tmp/$name.json"
}
iperf fwd
iperf rev -R
iperf rev128 -R -w 128K

# 3. netio, when there is one: against itself and against warpdrv both ways.
if [ -n "$netio" ]; then
	p=$(free_port)
	$srv "$netio" -s -p "$p" >"$tmp/netio-server.log" 2>&1 &
	pids="$pids $!"
	sleep 1
	$cli "$netio" -t -p "$p" "$host" >"$tmp/netio.txt" 2>&1
	netio_json netio
	$cli "$wd" --json bench client "$host" --port "$p" --seconds "$secs" --db "$tmp/client.db" \
		>"$tmp/wd-to-netio.json"
	p2=$(free_port)
	wd_server "$p2"
	$cli "$netio" -t -p "$p2" "$host" >"$tmp/netio-to-wd.txt" 2>&1
	netio_json netio-to-wd
fi

python3 - "$tmp" "$secs" "$netio" "$link" <<'PY'
import json, os, sys
tmp, secs, netio, link = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
MIB = 1048576.0
def rows(name):
    d = json.load(open(os.path.join(tmp, name + ".json")))
    return {r["block_name"]: (r["tx"]["bytes_per_second"] / MIB, r["rx"]["bytes_per_second"] / MIB)
            for r in d["results"]}
def iperf(name):
    return json.load(open(os.path.join(tmp, name + ".json")))["end"]["sum_received"]["bits_per_second"] / 8 / MIB
w = rows("warpdrv")
print("%s, %s s per direction; MByte/s (1048576 bytes); Tx client to server, Rx back" % (link, secs))
print("  warpdrv client against warpdrv server (TCP):")
for size, (tx, rx) in w.items():
    print("    %4s  Tx %9.2f  Rx %9.2f" % (size, tx, rx))
fwd, rev, rev128 = iperf("fwd"), iperf("rev"), iperf("rev128")
print("  iperf3 -l 32767: %.2f, -R %.2f, -R -w 128K %.2f" % (fwd, rev, rev128))
ratio = w["32k"][1] / rev
print("ratio of receive rates at 32k (warpdrv Rx / iperf3 -R): %.2f (aim: 0.9 or better)" % ratio)
print("with equal 128 KiB socket buffers (iperf3 -R -w 128K): %.2f" % (w["32k"][1] / rev128))
if netio:
    n, wn, nw = rows("netio"), rows("wd-to-netio"), rows("netio-to-wd")
    print("  netio 1.3x (%s) against itself, and warpdrv's ratio to it:" % netio)
    print("    %4s  %9s %9s  %14s %14s  %14s %14s" % ("", "netio Tx", "Rx", "wd/netio Tx", "Rx",
          "wd client Rx", "wd server Tx"))
    for size, (tx, rx) in n.items():
        a, b = w.get(size, (0, 0)), wn.get(size, (0, 0))
        c = nw.get(size, (0, 0))
        print("    %4s  %9.2f %9.2f  %14.2f %14.2f  %14.2f %14.2f" % (size, tx, rx, a[0] / tx,
              a[1] / rx, b[1] / rx, c[0] / tx))
    print("  (wd client Rx: warpdrv's client receiving from netio's server; wd server Tx:")
    print("   netio's client sending to warpdrv's server; each over netio against itself)")
sys.exit(0 if ratio >= 0.9 else 1)
PY
