#!/usr/bin/env bash
# The SQLite library the programs run with: one older than 3.33 fails what
# opens a database, naming the version and the package to install, with the
# volume unchanged (nothing made on a volume warpdrv never wrote to); what
# needs no database still works.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pkg_lib.sh"
. "$FIX/pci/sysfs.sh"

guest() {
	make_sysfs "$T/g" "${VBOX_BASE[@]}" "$(vbox_nic 0000:00:03.0 Am79C973)"
}

# A volume with warpdrv's state on it: pcntnd installed.
state_volume() {
	make_volume "$T/v"
	wd --root "$T/v" install pcntnd
	assert_rc 0
}

# $T/libold.so: the SQLite library's version said to be 3.32.3 (preloaded,
# it answers for the library the programs link); OLD is what LD_PRELOAD
# names (after AddressSanitizer's runtime, which must come first, in the
# sanitized programs).
old_sqlite() {
	command -v cc >/dev/null || skip "no C compiler"
	echo "int sqlite3_libversion_number(void) { return 3032003; }" >"$T/old.c"
	cc -shared -fPIC -o "$T/libold.so" "$T/old.c" || fail "cannot build the old library"
	local asan
	asan=$(ldd "$WD" | awk '/libasan/ { print $3 }')
	OLD="${asan:+$asan }$T/libold.so"
}
# wd with the old SQLite (the preload for warpdrv alone, not the tools the
# test runs beside it)
wd_old() { LD_PRELOAD="$OLD" wd "$@"; }

t_an_sqlite_older_than_3_33_is_refused() {
	old_sqlite
	state_volume
	guest
	local before
	before=$(snapshot "$T/v")
	wd_old --root "$T/v" list
	assert_rc 1
	assert_err "warpdrv.db: cannot open: the SQLite library is 3.32.3, and warpdrv needs 3.33 or later; install a newer package libsqlite3-0"
	wd_old --root "$T/v" remove --yes pcntnd
	assert_rc 1
	assert_err "SQLite library is 3.32.3"
	wd_old --root "$T/v" install e1000
	assert_rc 1
	assert_err "SQLite library is 3.32.3"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "a command without SQLite changed the volume"
	# what needs no database still works
	wd_old detect --pci "sysfs:$T/g"
	assert_rc 0
	assert_out "0000:00:03.0: driver pcntnd"
	wd_old --version
	assert_rc 0
	wd --root "$T/v" list
	assert_rc 0
	assert_out "pcntnd"
}

# A volume warpdrv never wrote to: nothing is made on it (no state folder,
# lock or empty database) by a command that cannot open the database.
t_an_old_sqlite_makes_nothing_on_a_fresh_volume() {
	old_sqlite
	make_volume "$T/v"
	local before
	before=$(snapshot "$T/v")
	wd_old --root "$T/v" install pcntnd
	assert_rc 1
	assert_err "warpdrv.db: cannot open: the SQLite library is 3.32.3"
	wd_old --root "$T/v" repo add main http://127.0.0.1:9/r/
	assert_rc 1
	assert_err "install a newer package libsqlite3-0"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the volume changed: $(find "$T/v" -newer "$T/v/CONFIG.SYS")"
	[ ! -e "$T/v/var" ] || fail "var/ was made: $(find "$T/v/var")"
	wd --root "$T/v" install pcntnd
	assert_rc 0
}

run_tests
