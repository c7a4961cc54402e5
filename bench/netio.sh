#!/bin/sh
# warpdrv bench beside iperf3 (Debian's) over loopback in one run: warpdrv's
# server and client with netio's 32k blocks (32767 bytes), then iperf3 with the
# same write size, both directions. Prints the rates and the ratio of the
# receive rates (warpdrv Rx / iperf3 -R); the aim is 0.9 or better.
#   bench/netio.sh [SECONDS]      (default 6, netio's length per direction)
# Environment: WARPDRV (the program; default build/warpdrv, built if missing).
# Exit status: 0 ratio at or above 0.9, 1 below it or a step failed.
set -eu
secs=${1:-6}
top=$(cd "$(dirname "$0")/.." && pwd)
wd=${WARPDRV:-$top/build/warpdrv}
if ! command -v iperf3 >/dev/null 2>&1; then
	echo "bench/netio.sh: iperf3 is missing; install it with: sudo apt-get install iperf3" >&2
	exit 1
fi
if ! command -v python3 >/dev/null 2>&1; then
	echo "bench/netio.sh: python3 is missing (it reads the JSON results); sudo apt-get install python3" >&2
	exit 1
fi
[ -x "$wd" ] || make -C "$top" --no-print-directory "build/warpdrv" >/dev/null

tmp=$(mktemp -d)
pids=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null || :; done
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

free_port() { python3 "$top/tests/http/free_port.py"; }

wait_for() { # file text: until the file holds the text (5 s at most)
	i=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		[ "$i" -lt 50 ] || { echo "bench/netio.sh: $1 never said '$2'" >&2; cat "$1" >&2; exit 1; }
		sleep 0.1
	done
}

# warpdrv: its own server and client, 32k blocks only.
port=$(free_port)
"$wd" bench server --bind 127.0.0.1 --port "$port" --seconds "$secs" --db "$tmp/server.db" \
	>"$tmp/server.log" 2>&1 &
pids="$pids $!"
wait_for "$tmp/server.log" '^Listening'
"$wd" --json bench client 127.0.0.1 --port "$port" -b 32k --seconds "$secs" \
	--db "$tmp/client.db" >"$tmp/warpdrv.json"

# iperf3: a one-off server per measurement, the same write size.
iperf() { # name, extra client options...
	name=$1
	shift
	p=$(free_port)
	iperf3 -s -1 --forceflush -B 127.0.0.1 -p "$p" >"$tmp/iperf-$name.log" 2>&1 &
	pids="$pids $!"
	wait_for "$tmp/iperf-$name.log" 'listening'
	iperf3 -c 127.0.0.1 -p "$p" -l 32767 -t "$secs" -J "$@" >"$tmp/$name.json"
}
iperf fwd
iperf rev -R
iperf rev128 -R -w 128K

python3 - "$tmp" "$secs" <<'PY'
import json, sys
tmp, secs = sys.argv[1], sys.argv[2]
MIB = 1048576.0
w = json.load(open(tmp + "/warpdrv.json"))["results"][0]
def iperf(name):
    return json.load(open(tmp + "/" + name + ".json"))["end"]["sum_received"]["bits_per_second"] / 8 / MIB
wtx, wrx = w["tx"]["bytes_per_second"] / MIB, w["rx"]["bytes_per_second"] / MIB
fwd, rev, rev128 = iperf("fwd"), iperf("rev"), iperf("rev128")
print("loopback, 32k blocks (32767 bytes), %s s per direction; MByte/s (1048576 bytes)" % secs)
print("  %-40s %10s %10s" % ("", "Tx", "Rx"))
print("  %-40s %10.2f %10.2f" % ("warpdrv bench (128 KiB socket buffers)", wtx, wrx))
print("  %-40s %10.2f %10.2f" % ("iperf3 -l 32767", fwd, rev))
print("  %-40s %10s %10.2f" % ("iperf3 -l 32767 -w 128K", "-", rev128))
print("  netio line: " + w["line"])
ratio = wrx / rev
print("ratio of receive rates (warpdrv Rx / iperf3 -R): %.2f (aim: 0.9 or better)" % ratio)
print("with equal 128 KiB socket buffers (iperf3 -w 128K): %.2f" % (wrx / rev128))
sys.exit(0 if ratio >= 0.9 else 1)
PY
