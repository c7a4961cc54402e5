#!/usr/bin/env bash
# warpdrv history: the text in the local time zone with the zone shown (TZ
# set here), JSON in UTC with Z; an upgrade as "from -> to"; an undone or
# abandoned transaction named by its command and packages; and the schema
# step that added what those need, taking a database an older warpdrv wrote.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pkg_lib.sh"

DBREL=var/lib/warpdrv/warpdrv.db

# $T/v with testpkg 1.0 from $T/repo, then upgraded to 1.1 from $T/new.
upgraded_volume() {
	make_key
	make_recipe "$T/r10"
	mkdir -p "$T/repo" "$T/new"
	wda pack "$T/r10" --key "$T/k/repo/test.key" --out "$T/repo/testpkg-1.0.wdp"
	assert_rc 0
	make_recipe "$T/r11"
	sed -i 's/^version 1.0$/version 1.1/' "$T/r11/MANIFEST"
	printf 'test driver 1.1\n' >"$T/r11/TEST.OS2"
	wda pack "$T/r11" --key "$T/k/repo/test.key" --out "$T/new/testpkg-1.1.wdp"
	assert_rc 0
	wda index "$T/repo" --key "$T/k/repo/test.key"
	assert_rc 0
	wda index "$T/new" --key "$T/k/repo/test.key"
	assert_rc 0
	make_volume "$T/v"
	wd --root "$T/v" --keys "$T/k" --repo "$T/repo" install testpkg
	assert_rc 0
	wd --root "$T/v" --keys "$T/k" --repo "$T/repo" --repo "$T/new" upgrade --yes
	assert_rc 0
}

# The UTC time of history row ID as the database holds it, shifted by HOURS
# and formatted "YYYY-MM-DD HH:MM:SS".
row_time() { # ID HOURS
	python3 - "$T/v/$DBREL" "$1" "$2" <<'PY'
import datetime, sqlite3, sys
at = sqlite3.connect(sys.argv[1]).execute("SELECT at FROM history WHERE id = ?",
                                          (int(sys.argv[2]),)).fetchone()[0]
t = datetime.datetime.strptime(at, "%Y-%m-%d %H:%M:%S") + datetime.timedelta(hours=float(sys.argv[3]))
print(t.strftime("%Y-%m-%d %H:%M:%S"))
PY
}

t_text_is_local_time_with_the_zone_and_json_is_utc() {
	upgraded_volume
	local before
	before=$(snapshot "$T/v")
	# POSIX TZ strings: no time zone database needed
	TZ=CET-1 wd --root "$T/v" history
	assert_rc 0
	assert_out "   1  $(row_time 1 1) CET  install testpkg 1.0"
	assert_out "   2  $(row_time 2 1) CET  upgrade testpkg 1.0 -> 1.1"
	TZ=EST5 wd --root "$T/v" history
	assert_out "   2  $(row_time 2 -5) EST  upgrade testpkg 1.0 -> 1.1"
	TZ=UTC0 wd --root "$T/v" history
	assert_out "   2  $(row_time 2 0) UTC  upgrade testpkg 1.0 -> 1.1"
	# a zone with no name: its offset
	TZ='<+0530>-5:30' wd --root "$T/v" history
	assert_out "   2  $(row_time 2 5.5) +0530  upgrade testpkg 1.0 -> 1.1"
	# JSON: UTC with Z whatever TZ says, and the versions apart
	TZ=CET-1 wd --root "$T/v" --json history
	assert_rc 0
	local utc
	utc=$(row_time 2 0)
	assert_json 'd["history"][1] == {"id": 2, "at": "'"${utc/ /T}Z"'", "action": "upgrade", "package": "testpkg", "version": "1.1", "from_version": "1.0", "command": None, "packages": None}'
	assert_json 'd["history"][0]["from_version"] is None and d["history"][0]["version"] == "1.0"'
	[ "$(snapshot "$T/v")" = "$before" ] || fail "history changed the volume"
}

# An interrupted setup of two packages, as its intent rows are left when the
# run dies before anything was written: recover undoes it.
pending_setup() {
	python3 - "$T/v/$DBREL" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("INSERT INTO txn (id, action, package, started, rows_format, version, gen_n, gen_command,"
          " gen_summary) VALUES (100, 'install', 'setup', datetime('now'), 1, '-', 7, 'setup', 'x')")
for i, n in enumerate(["mmlem", "acpi-psd"]):
    c.execute("INSERT INTO txn_package (txn, seq, name, version, released, kind, entitlement,"
              " summary, manifest) VALUES (100, ?, ?, '1.0', '2024-01-01', 'nic', NULL, 's', 'm')",
              (i, n))
c.commit()
PY
}

t_an_undone_setup_is_named_by_its_command_and_packages() {
	make_volume "$T/v"
	make_good_package
	wd --root "$T/v" --keys "$T/k" install "$T/good.wdp"
	assert_rc 0
	pending_setup
	wd --root "$T/v" recover
	assert_rc 0
	[ "$(pending "$T/v")" = 0 ] || fail "the transaction is still pending"
	TZ=UTC0 wd --root "$T/v" history
	assert_rc 0
	assert_out "undo setup (mmlem, acpi-psd)"
	assert_no_out "undo install"
	assert_no_out " -"
	wd --root "$T/v" --json history
	assert_json 'd["history"][-1]["action"] == "undo" and d["history"][-1]["command"] == "setup" and d["history"][-1]["packages"] == ["mmlem", "acpi-psd"] and d["history"][-1]["version"] is None'
	# abandoned: the same name
	pending_setup
	wd --root "$T/v" recover --abandon
	assert_rc 0
	wd --root "$T/v" history
	assert_out "abandon setup (mmlem, acpi-psd)"
}

# The first N steps of state/schema.c, as an older warpdrv wrote them
# (tests/e2e/test_state_hostile.sh reads them the same way).
old_db() { # N FILE
	python3 - "$SRC/state/schema.c" "$2" "$1" <<'PY'
import re, sqlite3, sys
src = open(sys.argv[1]).read()
body = src[src.index("db_schema_steps[] = {"):]
body = re.sub(r"/\*.*?\*/", "", body[:re.search(r"^\s*NULL\b", body, re.M).start()], flags=re.S)
steps, cur = [], ""
for lit, comma in re.findall(r'"((?:[^"\\]|\\.)*)"|(,)', body):
    if comma:
        steps.append(cur); cur = ""
    else:
        cur += lit.encode().decode("unicode_escape")
c = sqlite3.connect(sys.argv[2])
for i in range(int(sys.argv[3])):
    c.executescript(steps[i])
c.execute("PRAGMA user_version = %d" % int(sys.argv[3]))
c.commit()
PY
}

t_schema_step_11_takes_an_older_database_and_its_rows() {
	make_volume "$T/v"
	mkdir -p "$T/v/var/lib/warpdrv"
	old_db 10 "$T/v/$DBREL"
	python3 - "$T/v/$DBREL" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.executemany("INSERT INTO history (at, action, package, version) VALUES (?, ?, ?, ?)", [
    ("2026-11-30 08:00:00", "install", "testpkg", "1.0"),
    ("2026-11-30 09:00:00", "upgrade", "testpkg", "1.1"),
    ("2026-11-30 10:00:00", "undo install", "setup", "-")])
c.commit()
PY
	TZ=CET-1 wd --root "$T/v" history
	assert_rc 0
	assert_out "   1  2026-11-30 09:00:00 CET  install testpkg 1.0"
	# an older row has no from-version: the version it went to
	assert_out "   2  2026-11-30 10:00:00 CET  upgrade testpkg 1.1"
	assert_out "   3  2026-11-30 11:00:00 CET  undo install setup"
	# history only reads: the file keeps its schema, read through a copy
	# migrated in memory
	[ "$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("PRAGMA user_version").fetchone()[0])' "$T/v/$DBREL")" = 10 ] ||
		fail "a read-only command upgraded the schema"
	wd --root "$T/v" --json history
	assert_json '[h["at"] for h in d["history"]] == ["2026-11-30T08:00:00Z", "2026-11-30T09:00:00Z", "2026-11-30T10:00:00Z"]'
	assert_json 'all(h["from_version"] is None and h["command"] is None and h["packages"] is None for h in d["history"])'
	assert_json 'd["history"][2]["version"] is None'
	# and the upgraded database takes the next rows whole
	make_good_package
	wd --root "$T/v" --keys "$T/k" install "$T/good.wdp"
	assert_rc 0
	[ "$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("PRAGMA user_version").fetchone()[0])' "$T/v/$DBREL")" = 11 ] ||
		fail "the schema was not upgraded to 11 by a command that writes"
	wd --root "$T/v" --json history
	assert_json 'd["history"][3]["action"] == "install" and d["history"][3]["version"] == "1.0"'
}

run_tests
