#!/usr/bin/env bash
# SQLite without linking libsqlite3 (common/sqlite_lib.c): the programs start
# without it, what opens no database (detect without --root, --version) never
# loads it, and the first database loads it; a libsqlite3 that cannot be
# loaded, is not SQLite or is too old fails that command only, naming the
# library and the package to install, with the volume unchanged.
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

# (that neither program links libsqlite3: test_fetch.sh, with libcurl)

t_detect_without_a_volume_loads_no_sqlite() {
	guest
	LD_DEBUG=libs wd detect --pci "sysfs:$T/g"
	assert_rc 0
	assert_out "0000:00:03.0: driver pcntnd"
	grep -q 'calling init: .*libcrypto' "$T/err" || fail "LD_DEBUG shows no library start: $ERR"
	if grep -q 'libsqlite3' "$T/err"; then fail "detect loaded libsqlite3: $(grep libsqlite3 "$T/err")"; fi
	# and a volume's commands load it
	state_volume
	LD_DEBUG=libs wd --root "$T/v" list
	assert_rc 0
	assert_out "pcntnd"
	grep -q 'calling init: .*libsqlite3' "$T/err" || fail "list did not load libsqlite3"
}

t_no_libsqlite3_fails_what_opens_a_database_and_changes_nothing() {
	state_volume
	guest
	local before
	before=$(snapshot "$T/v")
	export WARPDRV_LIBSQLITE=libsqlite3-absent.so.0
	wd --root "$T/v" list
	assert_rc 1
	assert_err "warpdrv.db: cannot open: SQLite is needed, and libsqlite3-absent.so.0 cannot be loaded"
	assert_err "install the package libsqlite3-0 (apt-get install libsqlite3-0)"
	wd --root "$T/v" remove --yes pcntnd
	assert_rc 1
	assert_err "libsqlite3-absent.so.0 cannot be loaded"
	wd --root "$T/v" install e1000
	assert_rc 1
	assert_err "libsqlite3-absent.so.0 cannot be loaded"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "a command without SQLite changed the volume"
	# what needs no database still works
	wd detect --pci "sysfs:$T/g"
	assert_rc 0
	assert_out "0000:00:03.0: driver pcntnd"
	wd --version
	assert_rc 0
	unset WARPDRV_LIBSQLITE
	wd --root "$T/v" list
	assert_rc 0
	assert_out "pcntnd"
}

# A volume warpdrv never wrote to: nothing is made on it (no state folder,
# lock or empty database) by a command that cannot open the database.
t_no_libsqlite3_makes_nothing_on_a_fresh_volume() {
	make_volume "$T/v"
	local before
	before=$(snapshot "$T/v")
	export WARPDRV_LIBSQLITE=libsqlite3-absent.so.0
	wd --root "$T/v" install pcntnd
	assert_rc 1
	assert_err "warpdrv.db: cannot open: SQLite is needed, and libsqlite3-absent.so.0 cannot be loaded"
	wd --root "$T/v" repo add main http://127.0.0.1:9/r/
	assert_rc 1
	assert_err "install the package libsqlite3-0"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the volume changed: $(find "$T/v" -newer "$T/v/CONFIG.SYS")"
	[ ! -e "$T/v/var" ] || fail "var/ was made: $(find "$T/v/var")"
	unset WARPDRV_LIBSQLITE
	wd --root "$T/v" install pcntnd
	assert_rc 0
}

t_a_library_that_is_not_sqlite_is_refused() {
	state_volume
	local before
	before=$(snapshot "$T/v")
	WARPDRV_LIBSQLITE=libz.so.1 wd --root "$T/v" list
	assert_rc 1
	assert_err "libz.so.1 has no sqlite3_bind_blob (not SQLite 3.33 or later); install the package libsqlite3-0"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "list changed the volume"
}

# A library with every function warpdrv calls, whose version is 3.32.3.
t_an_sqlite_older_than_3_33_is_refused() {
	command -v cc >/dev/null || skip "no C compiler"
	state_volume
	local before f
	before=$(snapshot "$T/v")
	{
		# every function warpdrv loads (WD_SQLITE_FNS), each a stub
		for f in $(sed -n '/^#define WD_SQLITE_FNS/,/^$/p' "$WARPDRV_SRC/common/sqlite_lib.h" |
			grep -o 'X([a-z0-9_]*)' | sed 's/X(\(.*\))/\1/' | grep -vx libversion_number); do
			echo "int sqlite3_$f(void) { return 1; }"
		done
		echo "int sqlite3_libversion_number(void) { return 3032003; }"
	} >"$T/old.c"
	cc -shared -fPIC -o "$T/libold.so" "$T/old.c" || fail "cannot build the old library"
	WARPDRV_LIBSQLITE=$T/libold.so wd --root "$T/v" list
	assert_rc 1
	assert_err "libold.so is SQLite 3.32.3, and warpdrv needs 3.33 or later; install a newer package libsqlite3-0"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "list changed the volume"
}

run_tests
