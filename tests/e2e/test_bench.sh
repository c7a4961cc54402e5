#!/usr/bin/env bash
# warpdrv bench: a server in the background on a free loopback port, clients
# against it, imports of the announcement's listings, the report, and the faults
# the issue names. Every command is bounded in time; traffic stays on 127.0.0.1.
. "$(dirname "$0")/lib.sh"
BFIX="$FIX/bench"
export XDG_STATE_HOME="$TESTTMP/state" # never the user's own results

# Runs warpdrv with a time limit.
wdt() { run timeout 30 "$WD" "$@"; }

# Starts `warpdrv bench server` on $PORT with results in $T/server.db; the
# EXIT trap of the test's subshell stops it whatever happens.
# A port free when asked may be taken by a parallel test before the server
# binds it: a server that says so is started again on another (3 tries).
start_server() {
	local try
	for try in 1 2 3; do
		PORT=$(free_port)
		timeout 60 "$WD" bench server --bind 127.0.0.1 --port "$PORT" --seconds 0.1 \
			--db "$T/server.db" "$@" >"$T/server.log" 2>&1 &
		SERVER=$!
		trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null || :' EXIT
		for _ in $(seq 50); do
			grep -q '^Listening' "$T/server.log" && return 0
			grep -q 'is in use' "$T/server.log" && break
			sleep 0.1
		done
		grep -q 'is in use' "$T/server.log" || break
	done
	fail "server did not start: $(cat "$T/server.log")"
}

# How many runs a results file holds.
runs_in() {
	python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from run").fetchone()[0])' "$1"
}

# Six netio lines, one per block size, in order, then Done.
assert_six_lines() {
	python3 - "$T/out" <<'EOF' || fail "not six netio lines: $OUT"
import re, sys
lines = open(sys.argv[1]).read().splitlines()
rx = re.compile(r'^Packet size (..k) bytes:  \d+(\.\d\d|\.\d\d\d)? [KMG]?Byte/s( \(\d+%\))? Tx,  \d+(\.\d\d|\.\d\d\d)? [KMG]?Byte/s( \(\d+%\))? Rx\.$')
sizes = [m.group(1) for m in map(rx.match, lines) if m]
assert sizes == [" 1k", " 2k", " 4k", " 8k", "16k", "32k"], sizes
assert "Done." in lines
EOF
}

# netio's -b takes any size up to 64 KiB: a netio client asking the server
# for 64k blocks (C2S then S2C, as netio sends them) is served.
t_server_serves_a_64k_block_as_netio_b_asks() {
	start_server --label big
	python3 - "$PORT" <<'EOF' || fail "the server did not serve 64k blocks"
import socket, struct, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
size = 65536
s.sendall(struct.pack("!II", 1, size))           # C2S
for _ in range(4):
    s.sendall(b"\0" * size)
s.sendall(b"\1" + b"\0" * (size - 1))            # the end block
s.sendall(struct.pack("!II", 2, size))           # S2C
got = 0
last = b""
while True:
    b = s.recv(size)
    assert b, "the server hung up during S2C"
    start = got % size
    got += len(b)
    if start == 0:
        last = b[:1]
    elif start + len(b) > size:
        last = b[size - start:size - start + 1]
    if got % size == 0 and last == b"\1":
        break
s.sendall(struct.pack("!II", 0, 0))              # QUIT
s.close()
EOF
	for _ in $(seq 30); do [ "$(runs_in "$T/server.db")" = 1 ] && break; sleep 0.1; done
	[ "$(runs_in "$T/server.db")" = 1 ] || fail "no run recorded: $(cat "$T/server.log")"
}

t_tcp_client_against_server_every_size() {
	start_server --label after
	wdt bench client 127.0.0.1 -t --port "$PORT" --seconds 0.1 --label loop --db "$T/c.db"
	assert_rc 0
	assert_out "TCP connection established."
	assert_six_lines
	assert_out "Recorded as run 1 under label 'loop'"
	[ "$(runs_in "$T/c.db")" = 1 ] || fail "client db"
	# The server recorded the same run under its own label.
	for _ in $(seq 20); do [ "$(runs_in "$T/server.db")" = 1 ] && break; sleep 0.1; done
	wdt bench report --db "$T/server.db" --labels after
	assert_rc 0
	assert_out "| 32k |"
}

# Both ends of netio's UDP test bind the aux port (port + 1): on one host the
# client takes an address of its own, 127.0.0.2.
t_udp_client_against_server_every_size() {
	start_server
	wdt bench client 127.0.0.1 -u --bind 127.0.0.2 --port "$PORT" --seconds 0.1 --label udp \
		--db "$T/c.db"
	assert_rc 0
	assert_out "UDP connection established."
	assert_six_lines
	# Each rate is followed by its loss, as netio 1.33 prints it.
	grep -Eq '^Packet size 32k bytes:  [0-9.]+ [KMG]?Byte/s \([0-9]+%\) Tx,  [0-9.]+ [KMG]?Byte/s \([0-9]+%\) Rx\.$' "$T/out" || fail "no loss in the 32k line: $OUT"
	wdt --json bench report --db "$T/c.db"
	assert_json 'd["tcp"] is None and d["udp"]["runs"][0]["label"] == "udp" and len(d["udp"]["rows"]) == 6 and all(v["tx_mbyte_per_second"] > 0 and v["rx_mbyte_per_second"] > 0 and 0 <= v["tx_loss"] <= 100 and 0 <= v["rx_loss"] <= 100 for r in d["udp"]["rows"] for v in r["values"])'
	wdt bench report --db "$T/c.db"
	assert_out "| block | udp Tx | loss | udp Rx | loss |"
	for _ in $(seq 20); do [ "$(runs_in "$T/server.db")" = 1 ] && break; sleep 0.1; done
	grep -qF "client 127.0.0.2:" "$T/server.log" || fail "server: $(cat "$T/server.log")"
}

# Without --bind, a client on the server's host finds the aux port taken.
t_udp_client_beside_its_server_needs_bind() {
	PORT=$(free_port)
	timeout 60 "$WD" bench server --port "$PORT" --seconds 0.1 --db "$T/server.db" \
		>"$T/server.log" 2>&1 &
	SERVER=$!
	trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null || :' EXIT
	for _ in $(seq 50); do grep -q '^Listening' "$T/server.log" && break; sleep 0.1; done
	wdt bench client 127.0.0.1 -u --port "$PORT" --seconds 0.1 --db "$T/c.db"
	assert_rc 1
	assert_err "UDP port $((PORT + 1)) is in use on this host: netio's UDP test binds it on both ends"
	[ "$(runs_in "$T/c.db")" = 0 ] || fail "recorded"
}

t_client_json_and_one_block_size() {
	start_server
	wdt --json bench client 127.0.0.1 -b 4k --port "$PORT" --seconds 0.1 --db "$T/c.db"
	assert_rc 0
	assert_json 'd["label"] == "127.0.0.1" and len(d["results"]) == 1 and d["results"][0]["block"] == 4096 and d["results"][0]["netio_line"].startswith("Packet size  4k bytes:  ") and d["results"][0]["rx"]["bytes"] % 4096 == 0'
	# 32k is 32768 bytes over TCP, 32767 over UDP.
	wdt --json bench client 127.0.0.1 -b 32k -p "$PORT" --seconds 0.1 --db "$T/c.db"  # -p: netio's spelling
	assert_rc 0
	assert_json 'd["results"][0]["block"] == 32768 and d["results"][0]["rx"]["bytes"] % 32768 == 0'
	wdt --json bench client 127.0.0.1 -u -b32k --bind 127.0.0.2 --port "$PORT" --seconds 0.1 --db "$T/c.db"
	assert_rc 0
	assert_json 'd["proto"] == "udp" and d["results"][0]["block"] == 32767 and d["results"][0]["rx"]["bytes"] % 32767 == 0 and "loss_percent" in d["results"][0]["tx"]'
}

# bench/netio.sh rx's report reads these documents as they are: a TCP and a
# UDP run, each standing for both sides of one round, give ratios of 1.
t_rx_report_reads_the_client_documents() {
	start_server
	mkdir "$T/rx"
	wdt --json bench client 127.0.0.1 -b 4k --port "$PORT" --seconds 0.1 --db "$T/c.db"
	assert_rc 0
	cp "$T/out" "$T/rx/wd-t-1-4k.json" && cp "$T/out" "$T/rx/netio-t-1-4k.json"
	wdt --json bench client 127.0.0.1 -u -b 4k --bind 127.0.0.2 --port "$PORT" --seconds 0.1 --db "$T/c.db"
	assert_rc 0
	cp "$T/out" "$T/rx/wd-u-1-4k.json" && cp "$T/out" "$T/rx/netio-u-1-4k.json"
	run python3 "$SRC/bench/netio_rx_report.py" "$T/rx" 1 netio 1.33 "0 0 0"
	assert_rc 0
	grep -Eq '^\| TCP \| 4k \| Rx \| [0-9.]+ \([0-9.]+-[0-9.]+\) \| [0-9.]+ \([0-9.]+-[0-9.]+\) \| 1\.00 \| 1\.00-1\.00 \| within 5% \|$' <<<"$OUT" || fail "no TCP 4k Rx row: $OUT"
	assert_out "| UDP | 4k | Tx |"
	assert_out "cells: 4 within 5%"
}

# The verdict of each cell from the rounds' ratios, with made-up figures:
# the middle half of the ratios within 0.95..1.05, wholly below, wholly
# above, or straddling a bound ("within the spread": the rounds cannot tell).
t_rx_report_verdicts_from_the_spread() {
	mkdir "$T/rx"
	python3 - "$T/rx" <<'PY'
import json, os, sys
d = sys.argv[1]
M = 1048576
# Per round: netio's and warpdrv's 8k Rx, then 32k Rx; Tx the same as Rx.
rounds = [((100, 101), (100, 90), (100, 120), (100, 99)),
          ((100, 99), (100, 91), (100, 118), (100, 112)),
          ((102, 100), (100, 89), (100, 121), (100, 90)),
          ((98, 99), (100, 92), (100, 119), (100, 104)),
          ((100, 103), (100, 90), (100, 122), (100, 96))]
for k, cells in enumerate(rounds, 1):
    for prog, i in (("netio", 0), ("wd", 1)):
        for proto, pair in (("t", cells[:2]), ("u", cells[2:])):
            res = [{"block_name": name, "tx": {"bytes_per_second": c[i] * M},
                    "rx": {"bytes_per_second": c[i] * M}} for name, c in zip(("8k", "32k"), pair)]
            with open(os.path.join(d, "%s-%s-%d-all.json" % (prog, proto, k)), "w") as f:
                json.dump({"results": res}, f)
PY
	run python3 "$SRC/bench/netio_rx_report.py" "$T/rx" 5 netio 1.33 "0.5 0.4 0.3"
	assert_rc 0
	# ratios 1.01 0.99 0.98 1.01 1.03: the middle half 0.99-1.02
	assert_out "| TCP | 8k | Rx | 100.0 (98.0-102.0) | 100.0 (99.0-103.0) | 1.00 | 0.99-1.02 | within 5% |"
	assert_out "| TCP | 32k | Rx | 100.0 (100.0-100.0) | 90.0 (89.0-92.0) | 0.90 | 0.90-0.92 | behind |"
	assert_out "| UDP | 8k | Tx | 100.0 (100.0-100.0) | 120.0 (118.0-122.0) | 1.20 | 1.19-1.21 | ahead |"
	# 0.99 1.12 0.90 1.04 0.96: the middle half 0.93-1.08 straddles both bounds
	assert_out "| UDP | 32k | Rx | 100.0 (100.0-100.0) | 99.0 (90.0-112.0) | 0.99 | 0.93-1.08 | within the spread |"
	assert_out "cells: 2 ahead, 2 behind, 2 within 5%, 2 within the spread"
	assert_out "beyond 5%: TCP 32k Rx 0.90 (behind), TCP 32k Tx 0.90 (behind), UDP 8k Rx 1.20 (ahead), UDP 8k Tx 1.20 (ahead)"
	assert_out "load average: 0.5 0.4 0.3"
}

t_import_announcement_gives_its_table() {
	need_samples
	wdt bench import --db "$T/r.db" --label E1000 "$BFIX/e1000.txt"
	assert_rc 0
	assert_out "Read 6 block sizes"
	wdt bench import --db "$T/r.db" --label MMLEM "$BFIX/mmlem.txt"
	assert_rc 0
	wdt bench report --db "$T/r.db" --svg "$T/chart.svg"
	assert_rc 0
	assert_out "| block | E1000 Tx | E1000 Rx | MMLEM Tx | MMLEM Rx | Tx ratio | Rx ratio |"
	assert_out "| 1k | 15.04 | 8.95 | 13.19 | 8.97 | 0.88x | 1.00x |"
	assert_out "| 16k | 24.83 | 20.62 | 50.39 | 22.74 | 2.03x | 1.10x |"
	assert_out "| 32k | 19.52 | 17.82 | 28.07 | 19.19 | 1.44x | 1.08x |"
	assert_out "peak Tx went from 24.83 MByte/s to 50.39 MByte/s at 16k: 2.03x"
	assert_out "peak Rx went from 20.62 MByte/s to 22.74 MByte/s at 16k: 1.10x"
	# Every row of the announcement's table, as the reference has it.
	ref="$SAMPLES/../REFERENCE.md"
	if [ -f "$ref" ]; then
		n=0
		while IFS= read -r row; do
			assert_out "$row"
			n=$((n + 1))
		done < <(grep -E '^\| (1|2|4|8|16|32)k \| [0-9]' "$ref" | sed 's/ |$//')
		[ "$n" = 6 ] || fail "found $n rows in the reference"
	fi
	# The chart: well-formed SVG with a bar per label, direction and block size.
	python3 -c 'import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
bars = [e for e in r.iter("{http://www.w3.org/2000/svg}rect") if e.find("{http://www.w3.org/2000/svg}title") is not None]
assert r.tag.endswith("svg") and len(bars) == 24, len(bars)
assert any("MMLEM 16k Tx: 50.39" in b.find("{http://www.w3.org/2000/svg}title").text for b in bars)' "$T/chart.svg" || fail "bad chart"
}

# Several runs under a label: each figure is their median with the range,
# and a ratio the two labels' ranges cannot tell from none is marked.
t_report_medians_ranges_and_the_spread() {
	imp() { # label 8k-Tx 32k-Tx
		printf 'Packet size  8k bytes:  %s MByte/s Tx,  50.00 MByte/s Rx.\nPacket size 32k bytes:  %s MByte/s Tx,  60.00 MByte/s Rx.\n' "$2" "$3" >"$T/l.txt"
		wdt bench import --db "$T/r.db" --label "$1" "$T/l.txt"
		assert_rc 0
	}
	imp before 100.00 200.00
	wdt bench report --db "$T/r.db"
	assert_out "| 8k | 100.00 | 50.00 |"
	assert_out "One run per label: the spread is not known."
	imp before 104.00 204.00
	imp before 98.00 198.00
	imp after 103.00 300.00
	imp after 110.00 310.00
	imp after 107.00 290.00
	wdt bench report --db "$T/r.db"
	assert_rc 0
	assert_out "netio TCP throughput in MByte/s (1 MByte = 1048576 bytes), the runs of each label:"
	assert_out "| 8k | 100.00 (98.00-104.00) | 50.00 (50.00-50.00) | 107.00 (103.00-110.00) | 50.00 (50.00-50.00) | 1.07x, within the spread | 1.00x, within the spread |"
	assert_out "| 32k | 200.00 (198.00-204.00) | 60.00 (60.00-60.00) | 300.00 (290.00-310.00) | 60.00 (60.00-60.00) | 1.50x | 1.00x, within the spread |"
	assert_out "  before: 3 runs (1 to 3), import l.txt, the latest at "
	assert_out "the two labels' ranges overlap"
	# --runs 1: the latest run of each alone, whose spread is unknown.
	wdt bench report --db "$T/r.db" --runs 1
	assert_out "| 8k | 98.00 | 50.00 | 107.00 | 50.00 | 1.09x | 1.00x |"
	assert_out "One run per label: the spread is not known."
	wdt --json bench report --db "$T/r.db"
	assert_json 'd["tcp"]["rows"][0]["tx_ratio"] == 1.07 and d["tcp"]["rows"][0]["tx_within_spread"] is True and d["tcp"]["rows"][1]["tx_within_spread"] is False and d["tcp"]["rows"][0]["values"][0]["tx_min"] == 98 and d["tcp"]["rows"][0]["values"][0]["tx_max"] == 104 and d["tcp"]["rows"][0]["values"][0]["tx_rounds"] == 3 and d["tcp"]["runs"][1]["rounds"] == 3'
	wdt bench report --db "$T/r.db" --runs 0
	assert_rc 2
}

# --rounds N: N runs recorded, then each figure's median and range.
t_client_rounds_give_medians_and_ranges() {
	start_server
	wdt bench client 127.0.0.1 -b 2k --rounds 3 --port "$PORT" --seconds 0.05 --label r --db "$T/c.db"
	assert_rc 0
	assert_out "Round 3 of 3:"
	assert_out "Medians of 3 rounds in MByte/s (1048576 bytes), with their range (lowest-highest):"
	grep -Eq '^   2k  Tx [0-9.]+ \([0-9.]+-[0-9.]+\)  Rx [0-9.]+ \([0-9.]+-[0-9.]+\)$' <<<"$OUT" || fail "no spread line: $OUT"
	assert_out "Recorded as runs 1 to 3 under label 'r'"
	[ "$(runs_in "$T/c.db")" = 3 ] || fail "recorded $(runs_in "$T/c.db") runs"
	wdt --json bench client 127.0.0.1 -b 2k --rounds 2 --port "$PORT" --seconds 0.05 --label r --db "$T/c.db"
	assert_rc 0
	assert_json 'd["rounds"] == 2 and [r["run"] for r in d["runs"]] == [4, 5] and d["spread"][0]["block_name"] == "2k" and d["spread"][0]["rx"]["min"] <= d["spread"][0]["rx"]["mbyte_per_second"] <= d["spread"][0]["rx"]["max"] and d["spread"][0]["tx"]["rounds"] == 2'
	wdt bench client 127.0.0.1 --rounds 101 --port "$PORT" --db "$T/c.db"
	assert_rc 2
	assert_err "--rounds 101: expected a count from 1 to 100"
}

t_import_netio126_integers_from_stdin() {
	printf 'Packet size  1k bytes:  9168 KByte/s Tx,  9183 KByte/s Rx.\r\nPacket size  2k bytes:  12000 KByte/s Tx,  12288 KByte/s Rx.\r\n' >"$T/old.txt"
	RC=0
	timeout 30 "$WD" bench import --db "$T/r.db" --label old - <"$T/old.txt" >"$T/out" 2>"$T/err" || RC=$?
	OUT=$(cat "$T/out"); ERR=$(cat "$T/err")
	assert_rc 0
	wdt bench report --db "$T/r.db"
	assert_out "| 1k | 8.95 | 8.97 |"
	assert_out "| 2k | 11.72 | 12.00 |"
	assert_no_out "ratio"
}

t_client_server_closes_mid_test() {
	PORT=$(free_port)
	# Reads the first command and a little data, then hangs up.
	timeout 20 python3 -c 'import socket,sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1); print("up", flush=True)
c, _ = s.accept(); c.recv(5000); c.close()' "$PORT" >"$T/fake.log" 2>&1 &
	for _ in $(seq 50); do grep -q up "$T/fake.log" && break; sleep 0.1; done
	wdt bench client 127.0.0.1 --port "$PORT" --seconds 1 --db "$T/c.db"
	assert_rc 1
	assert_err "closed the connection during the 1k Tx test"
	assert_err "nothing recorded"
	[ "$(runs_in "$T/c.db")" = 0 ] || fail "a broken run was recorded"
}

t_client_against_another_protocol() {
	PORT=$(free_port)
	# An HTTP server's answer to anything.
	timeout 20 python3 -c 'import socket,sys,time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1); print("up", flush=True)
c, _ = s.accept(); c.sendall(b"HTTP/1.0 400 Bad Request\r\n\r\n"); time.sleep(5)' "$PORT" >"$T/fake.log" 2>&1 &
	for _ in $(seq 50); do grep -q up "$T/fake.log" && break; sleep 0.1; done
	wdt bench client 127.0.0.1 --port "$PORT" --seconds 1 --db "$T/c.db"
	assert_rc 1
	assert_err "does not speak netio: it sent \"HTTP/1.0 400 Bad"
	[ "$(runs_in "$T/c.db")" = 0 ] || fail "a broken run was recorded"
}

t_server_survives_bad_clients() {
	start_server --label srv
	# Another protocol, then a client that hangs up in the middle of a test.
	python3 -c 'import socket,sys,struct
p = int(sys.argv[1])
s = socket.create_connection(("127.0.0.1", p)); s.sendall(b"GET / HTTP/1.0\r\n\r\n"); s.recv(100); s.close()
s = socket.create_connection(("127.0.0.1", p)); s.sendall(struct.pack(">II", 1, 1024) + bytes(3000)); s.close()
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.sendto(b"hello netio?", ("127.0.0.1", p + 1))
c = socket.create_connection(("127.0.0.1", p + 1)); c.sendall(struct.pack(">II", 1, 2048)); c.recv(8); c.close()' "$PORT"
	sleep 0.3
	wdt bench client 127.0.0.1 --port "$PORT" --seconds 0.1 -b 1k --db "$T/c.db"
	assert_rc 0
	assert_out "Packet size  1k bytes:"
	log=$(cat "$T/server.log")
	grep -qF 'does not speak netio: it sent "GET / HTTP/1.0  " where a command was due; run not recorded' "$T/server.log" || fail "no foreign note: $log"
	grep -qF 'closed the connection during the 1k Tx test; run not recorded' "$T/server.log" || fail "no closed note: $log"
	grep -qF 'closed the connection during the 2k Tx test (UDP); run not recorded' "$T/server.log" || fail "no UDP closed note: $log"
	grep -qF 'dropped a 12-byte datagram ("hello netio?") from 127.0.0.1:' "$T/server.log" || fail "no UDP note: $log"
	for _ in $(seq 20); do [ "$(runs_in "$T/server.db")" = 1 ] && break; sleep 0.1; done
	[ "$(runs_in "$T/server.db")" = 1 ] || fail "server recorded $(runs_in "$T/server.db") runs: $log"
}

t_port_in_use() {
	start_server
	wdt bench server --bind 127.0.0.1 --port "$PORT" --db "$T/other.db"
	assert_rc 1
	assert_err "TCP port $PORT is in use on 127.0.0.1"
}

t_unreachable_server() {
	PORT=$(free_port)
	wdt bench client 127.0.0.1 --port "$PORT" --db "$T/c.db"
	assert_rc 1
	assert_err "nothing listens on TCP port $PORT at 127.0.0.1"
	wdt bench client 127.0.0.1 -u --bind 127.0.0.2 --port "$PORT" --db "$T/c.db"
	assert_rc 1
	assert_err "nothing listens on TCP port $((PORT + 1)) at 127.0.0.1"
	[ "$(runs_in "$T/c.db")" = 0 ] || fail "recorded"
}

t_block_size_out_of_range() {
	wdt bench client 127.0.0.1 -b 64k --db "$T/c.db"
	assert_rc 1
	assert_err "block size 64k is out of range: netio blocks are 1k to 32k"
	wdt bench client 127.0.0.1 -b lots --db "$T/c.db"
	assert_rc 2
	assert_err "'lots' is not a block size"
	[ ! -e "$T/c.db" ] || fail "a results file was made for a refused command"
}

t_import_refuses_unreadable_and_foreign_files() {
	wdt bench import --db "$T/r.db" --label x "$T/missing.txt"
	assert_rc 1
	assert_err "$T/missing.txt"
	printf 'DEVICE=C:\\IBMCOM\\PROTMAN.OS2\r\n' >"$T/config.sys"
	wdt bench import --db "$T/r.db" --label x "$T/config.sys"
	assert_rc 1
	assert_err "config.sys: no netio result lines in it"
	head -c 2000 /dev/urandom >"$T/noise.bin"
	printf '\0' >>"$T/noise.bin"
	wdt bench import --db "$T/r.db" --label x "$T/noise.bin"
	assert_rc 1
	assert_err "noise.bin: not text"
	printf 'Packet size 1k bytes: 1 MByte/s Tx, 2 MByte/s Rx.\nPacket size 2k bytes: lots Tx, none Rx.\n' >"$T/bad.txt"
	wdt bench import --db "$T/r.db" --label x "$T/bad.txt"
	assert_rc 1
	assert_err "bad.txt line 2: not a netio result line"
	[ ! -e "$T/r.db" ] || fail "a refused import made a results file"
	wdt bench import --db "$T/r.db" "$BFIX/e1000.txt"
	assert_rc 2
	assert_err "needs --label NAME"
}

t_report_without_results_or_label() {
	wdt bench report --db "$T/none.db"
	assert_rc 1
	assert_err "no results yet: $T/none.db does not exist"
	[ ! -e "$T/none.db" ] || fail "report made a file"
	wdt bench import --db "$T/r.db" --label E1000 "$BFIX/e1000.txt"
	wdt bench report --db "$T/r.db" --labels E1000,MMLEM
	assert_rc 1
	assert_err "no run recorded under label 'MMLEM' (labels there: 'E1000')"
	wdt bench report --db "$T/r.db" --labels E1000,
	assert_rc 2
}

t_default_db_is_in_the_state_folder() {
	wdt bench import --label E1000 "$BFIX/e1000.txt"
	assert_rc 0
	[ -f "$XDG_STATE_HOME/warpdrv/bench.db" ] || fail "no $XDG_STATE_HOME/warpdrv/bench.db"
}

t_bench_usage() {
	wdt bench
	assert_rc 2
	assert_err "name a subcommand"
	wdt bench frob
	assert_rc 2
	wdt bench client
	assert_rc 2
	assert_err "name the HOST"
	wdt bench client 127.0.0.1 --seconds 0
	assert_rc 2
	wdt bench --help
	assert_rc 0
	assert_out "bench import --label NAME FILE"
}

run_tests
