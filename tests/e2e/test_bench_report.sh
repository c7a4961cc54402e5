#!/usr/bin/env bash
# The before/after workflow: runs measured with --root VOL are labelled with
# the NIC driver the volume's CONFIG.SYS loads, so `bench report` prints the
# announcement's table without hand labels. Two fixture volumes: the E1000
# one as shipped, and an MMLEM copy made here by editing its CONFIG.SYS.
. "$(dirname "$0")/lib.sh"
export XDG_STATE_HOME="$TESTTMP/state"

wdt() { run timeout 60 "$WD" "$@"; }

start_server() {
	PORT=$(free_port)
	timeout 120 "$WD" "$@" bench server --bind 127.0.0.1 --port "$PORT" --seconds 0.1 \
		--db "$T/server.db" >"$T/server.log" 2>&1 &
	SERVER=$!
	trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null || :' EXIT
	for _ in $(seq 50); do grep -q '^Listening' "$T/server.log" && return 0; sleep 0.1; done
	fail "server did not start: $(cat "$T/server.log")"
}

# $T/e1000 (with the e1000 package installed, so its version is known) and
# $T/mmlem (CONFIG.SYS loads MMLEM.OS2 instead; no state).
make_volumes() {
	cp -a "$FIX/volumes/ecs21-e1000" "$T/e1000"
	wd --root "$T/e1000" -y install e1000
	assert_rc 0
	cp -a "$FIX/volumes/ecs21-e1000" "$T/mmlem"
	sed -i 's/\\MACS\\E1000\.OS2/\\MACS\\MMLEM.OS2/' "$T/mmlem/CONFIG.SYS"
	grep -q $'^DEVICE=C:\\\\IBMCOM\\\\MACS\\\\MMLEM.OS2\r$' "$T/mmlem/CONFIG.SYS" || fail "no MMLEM line"
}

# One TCP and one UDP run of every size against the server, labelled by VOL.
measure() {
	before=$(snapshot "$1")
	wdt --root "$1" bench client 127.0.0.1 --port "$PORT" --seconds 0.1 --db "$T/c.db"
	assert_rc 0
	assert_out "The volume's CONFIG.SYS loads $2 (line 19)"
	wdt --root "$1" bench client 127.0.0.1 -u --bind 127.0.0.2 --port "$PORT" --seconds 0.1 \
		--db "$T/c.db"
	assert_rc 0
	[ "$(snapshot "$1")" = "$before" ] || fail "bench changed the volume $1"
}

t_report_of_two_labelled_runs_is_the_announcements_table() {
	make_volumes
	start_server
	measure "$T/e1000" E1000.OS2
	assert_out "package e1000 4.02; runs are labelled 'E1000'"
	measure "$T/mmlem" MMLEM.OS2
	assert_out "installed by no package; runs are labelled 'MMLEM'"
	wdt bench report --db "$T/c.db"
	assert_rc 0
	assert_out "| block | E1000 Tx | E1000 Rx | MMLEM Tx | MMLEM Rx | Tx ratio | Rx ratio |"
	assert_out "| block | E1000 Tx | loss | E1000 Rx | loss | MMLEM Tx | loss | MMLEM Rx | loss | Tx ratio | Rx ratio |"
	assert_out "E1000: E1000.OS2 (e1000 4.02), run 1, client 127.0.0.1:$PORT"
	assert_out "MMLEM: MMLEM.OS2, run 3, client 127.0.0.1:$PORT"
	# Six rows per table with a figure in every cell, then the peak lines.
	python3 - "$T/out" <<'PY' || fail "bad report: $OUT"
import re, sys
t = open(sys.argv[1]).read()
tcp, udp = t.split("netio UDP")
num = r"\d+\.\d\d"
rt = re.compile(r"^\| (1|2|4|8|16|32)k \|( %s \|){4}( %sx \|){2}$" % (num, num), re.M)
ru = re.compile(r"^\| (1|2|4|8|16|32)k \|( %s \| \d+%% \|){4}( %sx \|){2}$" % (num, num), re.M)
assert [m.group(1) for m in rt.finditer(tcp)] == ["1", "2", "4", "8", "16", "32"], tcp
assert [m.group(1) for m in ru.finditer(udp)] == ["1", "2", "4", "8", "16", "32"], udp
for part in (tcp, udp):
    assert re.search(r"^peak Tx went from %s MByte/s (at \d+k )?to %s MByte/s at \d+k: %sx$" % (num, num, num), part, re.M), part
    assert re.search(r"^peak Rx went from ", part, re.M), part
PY
	# The JSON names the drivers and gives the ratio per row.
	wdt --json bench report --db "$T/c.db" --labels E1000,MMLEM
	assert_rc 0
	assert_json '[r["label"] for r in d["tcp"]["runs"]] == ["E1000", "MMLEM"] and d["tcp"]["runs"][0]["driver"] == "E1000.OS2" and d["tcp"]["runs"][0]["version"] == "e1000 4.02" and d["tcp"]["runs"][1]["version"] is None and len(d["udp"]["rows"]) == 6 and all(r["tx_ratio"] > 0 for r in d["tcp"]["rows"]) and d["udp"]["rows"][5]["block"] == 32768'
}

# The server side of the same: the guest's netio client runs against
# `bench server --root VOL` on the host.
t_server_labels_runs_with_the_volumes_driver() {
	make_volumes
	start_server --root "$T/mmlem"
	grep -qF "The volume's CONFIG.SYS loads MMLEM.OS2 (line 19)" "$T/server.log" || fail "$(cat "$T/server.log")"
	wdt bench client 127.0.0.1 -b 4k --port "$PORT" --seconds 0.1 --db "$T/c.db"
	assert_rc 0
	for _ in $(seq 30); do grep -q "under label 'MMLEM'" "$T/server.log" && break; sleep 0.1; done
	wdt --json bench report --db "$T/server.db"
	assert_json 'd["tcp"]["runs"][0]["label"] == "MMLEM" and d["tcp"]["runs"][0]["driver"] == "MMLEM.OS2" and d["udp"] is None'
}

t_root_without_a_nic_driver() {
	cp -a "$FIX/volumes/ecs21-e1000" "$T/v"
	sed -i '/MACS\\E1000\.OS2/d' "$T/v/CONFIG.SYS"
	before=$(snapshot "$T/v")
	wdt --root "$T/v" bench client 127.0.0.1 --db "$T/c.db"
	assert_rc 1
	assert_err "CONFIG.SYS loads no NIC driver (no DEVICE= line from \\IBMCOM\\MACS\\)"
	[ ! -e "$T/c.db" ] || fail "a results file was made"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the volume changed"
	wdt --root "$T/missing" bench server --db "$T/c.db"
	assert_rc 1
	[ ! -e "$T/c.db" ] || fail "a results file was made"
}

run_tests
