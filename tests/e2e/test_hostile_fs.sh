#!/usr/bin/env bash
# A volume built to reach the host through the file system itself: hard links
# to host files where warpdrv writes, a folder swapped for a link in the middle
# of a transaction, a crafted database schema. Each case checks the exit
# status, the message, that the sentinel folder beside the volume ($T/outside)
# is untouched, and that the volume is as it was or as the change makes it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pkg_lib.sh"

wdt() { run timeout 30 "$WD" "$@"; }

prepare() {
	make_key
	make_recipe
	wda pack "$T/recipe" --key "$T/k/repo/test.key" --out "$T/good.wdp"
	assert_rc 0
	make_volume "$T/v"
	mkdir -p "$T/outside"
	printf 'a host file\n' >"$T/outside/victim"
	chmod 0600 "$T/outside/victim"
	S0=$(snapshot "$T/outside")
}

outside_unchanged() {
	[ "$(snapshot "$T/outside")" = "$S0" ] || fail "a file outside the volume changed"
	[ "$(stat -c '%h %a %u' "$T/outside/victim")" = "1 600 0" ] ||
		fail "the host file's links, mode or owner changed: $(stat -c '%h %a %u' "$T/outside/victim")"
}

# A file warpdrv writes in place (the lock, the database, its journal) that
# is a hard link to a host file: refused by name, nothing written; exit 1,
# and 3 for the journal (a file SQLite would play back: docs/threat-model.md).
t_in_place_files_linked_to_a_host_file_are_refused() {
	for name in lock warpdrv.db warpdrv.db-journal; do
		rm -rf "$T/v" "$T/outside"
		prepare
		mkdir -p "$T/v/var/lib/warpdrv"
		if [ "$name" = warpdrv.db-journal ]; then
			wdt --root "$T/v" --keys "$T/k" install "$T/good.wdp"
			assert_rc 0
			wdt --yes --root "$T/v" remove testpkg
			assert_rc 0
		fi
		ln "$T/outside/victim" "$T/v/var/lib/warpdrv/$name"
		S0=$(snapshot "$T/outside")
		V0=$(snapshot "$T/v")
		wdt --root "$T/v" --keys "$T/k" install "$T/good.wdp"
		if [ "$name" = warpdrv.db-journal ]; then assert_rc 3; else assert_rc 1; fi
		assert_err "var/lib/warpdrv/$name"
		assert_err "hard link"
		ln -f "$T/outside/victim" "$T/v/var/lib/warpdrv/$name" 2>/dev/null || true
		[ "$(snapshot "$T/outside")" = "$S0" ] || fail "$name: the host file changed"
		[ "$(cat "$T/outside/victim")" = "a host file" ] || fail "$name: the host file was written"
		[ "$(snapshot "$T/v")" = "$V0" ] || fail "$name: the volume changed"
	done
}

# The new files of a transaction under a name that is a hard link to a host
# file (a driver's temporary, the kept copy of a file it replaces): the link
# is unlinked and the file made afresh, the host file untouched.
t_new_files_never_write_through_a_hard_link() {
	prepare
	mkdir -p "$T/v/var/lib/warpdrv/kept"
	ln "$T/outside/victim" "$T/v/OS2/KEEP.SYS.wd-new"
	ln "$T/outside/victim" "$T/v/IBMCOM/MACS/TEST.OS2.wd-new"
	wdt --root "$T/v" --keys "$T/k" install "$T/good.wdp"
	assert_rc 0
	[ "$(cat "$T/outside/victim")" = "a host file" ] || fail "the host file was written"
	[ ! -e "$T/v/OS2/KEEP.SYS.wd-new" ] && [ ! -e "$T/v/IBMCOM/MACS/TEST.OS2.wd-new" ] ||
		fail "a temporary is still there"
	stat -c %h "$T/outside/victim" | grep -qx 1 || fail "a link to the host file is left"
	# the kept copies: planted as hard links before a second install
	wdt --yes --root "$T/v" remove testpkg
	assert_rc 0
	for f in "$T"/v/var/lib/warpdrv/kept/*; do [ -e "$f" ] && rm -f "$f"; done
	wdt --root "$T/v" --keys "$T/k" install "$T/good.wdp"
	assert_rc 0
	kept=$(find "$T/v/var/lib/warpdrv/kept" -type f | head -1)
	[ -n "$kept" ] || fail "no kept copy to plant"
	wdt --yes --root "$T/v" remove testpkg
	assert_rc 0
	ln "$T/outside/victim" "$kept"
	wdt --root "$T/v" --keys "$T/k" install "$T/good.wdp"
	assert_rc 0
	outside_unchanged
	[ "$(cat "$T/v/OS2/KEEP.SYS")" != "a host file" ] || fail "KEEP.SYS got the host file"
}

# A folder of the volume swapped for a link to a host folder before each
# durable step of an install in turn (the test hook holds the run there):
# the step is refused, naming the link, and nothing is written outside; once
# the folder is put back, recovery leaves the volume as it was or as the
# install makes it.
t_folder_swapped_for_a_link_at_each_step() {
	prepare
	local old new n tried=0
	old=$(snapshot "$T/v" var)
	wdt --root "$T/v" --keys "$T/k" install "$T/good.wdp"
	assert_rc 0
	new=$(snapshot "$T/v" var)
	for n in $(seq 1 60); do
		rm -rf "$T/v" "$T/pause"
		make_volume "$T/v"
		WARPDRV_PAUSE_AT=$n WARPDRV_PAUSE_FILE="$T/pause" timeout 30 "$WD" --root "$T/v" \
			--keys "$T/k" install "$T/good.wdp" >"$T/bg.out" 2>"$T/bg.err" &
		local pid=$! i=0 rc=0
		while [ ! -e "$T/pause" ] && kill -0 $pid 2>/dev/null && [ $i -lt 1000 ]; do
			sleep 0.01
			i=$((i + 1))
		done
		if [ ! -e "$T/pause" ]; then
			wait $pid || true
			break # the install has fewer steps than n
		fi
		mv "$T/v/OS2" "$T/v/OS2.real"
		ln -s "$T/outside" "$T/v/OS2"
		rm -f "$T/pause"
		wait $pid || rc=$?
		tried=$((tried + 1))
		[ $rc -ne 124 ] || fail "step $n: install hung"
		if [ $rc -ne 0 ]; then
			[ $rc -eq 1 ] || fail "step $n: exit $rc: $(cat "$T/bg.err")"
			grep -q "symbolic link" "$T/bg.err" || fail "step $n: no word of the link: $(cat "$T/bg.err")"
		fi
		outside_unchanged
		rm "$T/v/OS2" && mv "$T/v/OS2.real" "$T/v/OS2"
		wdt --root "$T/v" recover
		assert_rc 0
		local now
		now=$(snapshot "$T/v" var)
		[ "$now" = "$old" ] || [ "$now" = "$new" ] || fail "step $n: the volume is neither old nor new"
	done
	[ $tried -ge 8 ] || fail "only $tried steps tried"
}

# A database whose table is replaced by a view that recurses for ever (and
# one with a trigger): refused before any query, at once, exit 3.
t_crafted_schema_is_refused_before_any_query() {
	prepare
	wdt --root "$T/v" --keys "$T/k" install "$T/good.wdp"
	assert_rc 0
	cp "$T/v/var/lib/warpdrv/warpdrv.db" "$T/good.db"
	python3 - "$T/v/var/lib/warpdrv/warpdrv.db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("ALTER TABLE history RENAME TO history_old")
c.execute("CREATE VIEW history AS WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT x AS id, x AS at, 'a' AS command, 'b' AS summary FROM r")
c.commit()
PY
	V0=$(snapshot "$T/v")
	for cmd in history verify "list --installed"; do
		SECONDS=0
		# shellcheck disable=SC2086
		wdt --root "$T/v" $cmd
		[ "$RC" -ne 124 ] || fail "$cmd hung"
		[ $SECONDS -lt 10 ] || fail "$cmd took $SECONDS s"
		assert_rc 3
		assert_err "warpdrv.db: the database's schema"
		assert_err "not the one warpdrv writes"
	done
	[ "$(snapshot "$T/v")" = "$V0" ] || fail "the volume changed"
	cp "$T/good.db" "$T/v/var/lib/warpdrv/warpdrv.db"
	python3 - "$T/v/var/lib/warpdrv/warpdrv.db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("CREATE TRIGGER t AFTER INSERT ON history BEGIN DELETE FROM package; END")
c.commit()
PY
	wdt --yes --root "$T/v" remove testpkg
	assert_rc 3
	assert_err "not the one warpdrv writes"
	outside_unchanged
}

# Keys planted on the volume are never trusted: a repository key does not
# let its package install, a licence key does not activate its forged
# subscription; the warning names the planted folder.
t_keys_planted_on_the_volume_are_ignored() {
	prepare
	mkdir -p "$T/v/var/lib/warpdrv/keys/repo" "$T/v/var/lib/warpdrv/keys/license"
	cp "$T/k/repo/test.pub" "$T/v/var/lib/warpdrv/keys/repo/"
	openssl genpkey -algorithm ed25519 -out "$T/lic.key" 2>/dev/null
	openssl pkey -in "$T/lic.key" -pubout -out "$T/v/var/lib/warpdrv/keys/license/lic.pub"
	V0=$(snapshot "$T/v")
	wdt --root "$T/v" install "$T/good.wdp"
	assert_rc 3
	assert_err "var/lib/warpdrv/keys: keys found on the volume are ignored"
	[ "$(snapshot "$T/v")" = "$V0" ] || fail "the volume changed"
	wda issue --key "$T/lic.key" --customer 7 --entitlements drivers,acpi \
		--issued 2026-01-01 --expires 2027-01-01
	assert_rc 0
	local key=$OUT
	WARPDRV_NOW=2026-11-29 wdt --root "$T/v" activate "$key"
	assert_rc 4
	assert_err "keys found on the volume are ignored"
	[ "$(snapshot "$T/v")" = "$V0" ] || fail "the volume changed"
	outside_unchanged
}

# The root handle is opened from the path as given: a relative --root, with
# "." and a trailing slash, names the same volume.
t_a_relative_root_names_the_volume() {
	prepare
	(cd "$T" && "$WD" --root ./v/ --keys k install good.wdp >"$T/out" 2>"$T/err") ||
		fail "install with --root ./v/: $(cat "$T/err")"
	(cd "$T/v" && "$WD" --root . list --installed >"$T/out" 2>"$T/err") || fail "$(cat "$T/err")"
	grep -q testpkg "$T/out" || fail "list --installed: $(cat "$T/out")"
	(cd "$T/v/OS2" && "$WD" --yes --root .. remove testpkg >"$T/out" 2>"$T/err") ||
		fail "remove with --root ..: $(cat "$T/err")"
	[ "$(tr -d '\r' <"$T/v/OS2/KEEP.SYS")" = "the KEEP.SYS the OS shipped" ] || fail "KEEP.SYS not put back"
}

run_tests
