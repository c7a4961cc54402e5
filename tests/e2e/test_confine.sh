#!/usr/bin/env bash
# Confinement: nothing a volume or a signed package holds makes warpdrv reach
# outside the volume's root or into its own state. Each case builds the volume
# (or package) an attacker would hand over, runs the command a user would, and
# checks the exit status, the message, that the volume kept every byte and
# that the sentinel folder beside it ($T/outside) is untouched.
#
# Functions named xt_ are cases whose fix lies in the transaction or the
# database code (txn/txn*.c, installer/generation.c, state/db.c): they
# are not run until those call the confined primitives (docs/threat-model.md).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pkg_lib.sh"

TOOL="$SRC/tests/e2e/wdp_tool.py"

# The test package $T/good.wdp, the volume $T/v (pkg_lib.sh) and the
# sentinel folder $T/outside: a 0600 secret, a victim file, a folder.
prepare() {
	make_good_package
	make_volume "$T/v"
	mkdir -p "$T/outside/dir"
	printf 'a host secret\n' >"$T/outside/secret"
	chmod 0600 "$T/outside/secret"
	printf 'a host file\n' >"$T/outside/victim"
}

remember() {
	V0=$(snapshot "$T/v")
	S0=$(snapshot "$T/outside")
}

unchanged() {
	[ "$(snapshot "$T/outside")" = "$S0" ] || fail "a file outside the volume changed"
	[ "$(snapshot "$T/v")" = "$V0" ] || fail "the volume changed"
}

# warpdrv under a time limit: a command that waits on a FIFO or reads a
# device for ever fails (status 124) rather than blocking the suite.
wdt() { run timeout 20 "$WD" "$@"; }

refused() { # STATUS MESSAGE: the last wdt run was refused so, and changed nothing
	[ "$RC" -ne 124 ] || fail "warpdrv hung (stopped after 20 s); stderr: $ERR"
	assert_rc "$1"
	assert_err "$2"
	unchanged
}

install_refused() { # STATUS MESSAGE
	wdt --root "$T/v" --keys "$T/k" install "$T/good.wdp"
	refused "$@"
}

# ---- symbolic links on the volume: exit 1, naming the link ----

t_folder_linked_out_of_the_volume() {
	prepare
	mkdir -p "$T/outside/MACS"
	rm -rf "$T/v/IBMCOM"
	ln -s "$T/outside" "$T/v/IBMCOM"
	remember
	install_refused 1 "$T/v/IBMCOM is a symbolic link"
	[ ! -e "$T/outside/MACS/TEST.OS2" ] || fail "a driver was written outside the volume"
}

t_destination_linked_to_a_host_file() {
	prepare
	rm "$T/v/OS2/KEEP.SYS"
	ln -s "$T/outside/secret" "$T/v/OS2/KEEP.SYS"
	remember
	install_refused 1 "$T/v/OS2/KEEP.SYS is a symbolic link"
	[ ! -e "$T/v/var/lib/warpdrv/kept" ] || [ -z "$(ls -A "$T/v/var/lib/warpdrv/kept")" ] ||
		fail "the host file was copied into kept/"
}

t_destination_linked_to_dev_zero() {
	prepare
	rm "$T/v/OS2/KEEP.SYS"
	ln -s /dev/zero "$T/v/OS2/KEEP.SYS"
	remember
	install_refused 1 "$T/v/OS2/KEEP.SYS is a symbolic link"
}

t_config_sys_linked_out_of_the_volume() {
	prepare
	mv "$T/v/CONFIG.SYS" "$T/outside/CONFIG.SYS"
	ln -s "$T/outside/CONFIG.SYS" "$T/v/CONFIG.SYS"
	remember
	for cmd in check list install; do
		if [ $cmd = install ]; then
			wdt --root "$T/v" --keys "$T/k" install "$T/good.wdp"
		else
			wdt --root "$T/v" $cmd
		fi
		refused 1 "$T/v/CONFIG.SYS is a symbolic link"
	done
}

t_state_folder_linked_out_of_the_volume() {
	prepare
	mkdir -p "$T/v/var/lib"
	ln -s "$T/outside/dir" "$T/v/var/lib/warpdrv"
	remember
	install_refused 1 "$T/v/var/lib/warpdrv is a symbolic link"
	wdt --root "$T/v" list --installed
	refused 1 "$T/v/var/lib/warpdrv is a symbolic link"
}

t_var_linked_out_of_the_volume() {
	prepare
	ln -s "$T/outside/dir" "$T/v/var"
	remember
	install_refused 1 "$T/v/var is a symbolic link"
}

t_cache_folder_linked_out_of_the_volume() {
	prepare
	wd --root "$T/v" repo add local "file://${WARPDRV_BUILD:?}/repo"
	assert_rc 0
	rm -rf "$T/v/var/cache/warpdrv"
	mkdir -p "$T/v/var/cache"
	ln -s "$T/outside/dir" "$T/v/var/cache/warpdrv"
	remember
	wdt --root "$T/v" update
	refused 1 "$T/v/var/cache/warpdrv is a symbolic link"
}

# ---- special files where a file is expected: refused at once, no hang ----

t_fifo_config_sys() {
	prepare
	rm "$T/v/CONFIG.SYS"
	mkfifo "$T/v/CONFIG.SYS"
	printf '00:03.0 0200: 8086:100e (rev 02)\n' >"$T/lspci"
	remember
	wdt --root "$T/v" check
	refused 1 "CONFIG.SYS is a FIFO"
	wdt --root "$T/v" list
	refused 1 "CONFIG.SYS is a FIFO"
	wdt --root "$T/v" --pci "lspci:$T/lspci" setup --dry-run
	refused 1 "CONFIG.SYS is a FIFO"
	wdt --root "$T/v" --keys "$T/k" install "$T/good.wdp"
	refused 1 "CONFIG.SYS is a FIFO"
}

# A FIFO NIF beside the E1000 driver of a configured volume.
t_fifo_nif() {
	prepare
	rm -rf "$T/v"
	cp -a "$FIX/volumes/ecs21-e1000" "$T/v"
	rm "$T/v/IBMCOM/MACS/E1000.NIF"
	mkfifo "$T/v/IBMCOM/MACS/E1000.NIF"
	printf '00:03.0 0200: 8086:100e (rev 02)\n' >"$T/lspci"
	remember
	wdt --root "$T/v" check
	[ "$RC" -ne 124 ] || fail "check hung on the FIFO"
	assert_out "E1000.NIF"
	unchanged
	wdt --root "$T/v" --pci "lspci:$T/lspci" setup --dry-run
	[ "$RC" -ne 124 ] || fail "setup --dry-run hung on the FIFO"
	unchanged
}

t_fifo_protocol_ini() {
	prepare
	rm -rf "$T/v"
	cp -a "$FIX/volumes/ecs21-e1000" "$T/v"
	rm "$T/v/IBMCOM/PROTOCOL.INI"
	mkfifo "$T/v/IBMCOM/PROTOCOL.INI"
	printf '00:03.0 0200: 8086:100e (rev 02)\n' >"$T/lspci"
	remember
	wdt --root "$T/v" check
	refused 1 "PROTOCOL.INI is a FIFO"
	wdt --root "$T/v" --pci "lspci:$T/lspci" setup --dry-run
	refused 1 "PROTOCOL.INI is a FIFO"
}

t_fifo_destination() {
	prepare
	rm "$T/v/OS2/KEEP.SYS"
	mkfifo "$T/v/OS2/KEEP.SYS"
	remember
	install_refused 1 "$T/v/OS2/KEEP.SYS is a FIFO"
}

t_device_destination() {
	prepare
	rm "$T/v/OS2/KEEP.SYS"
	mknod "$T/v/OS2/KEEP.SYS" c 1 3 2>/dev/null || skip "cannot make a device node here"
	remember
	install_refused 1 "$T/v/OS2/KEEP.SYS is a device"
}

t_socket_destination() {
	prepare
	rm "$T/v/OS2/KEEP.SYS"
	python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' \
		"$T/v/OS2/KEEP.SYS"
	remember
	install_refused 1 "$T/v/OS2/KEEP.SYS is a socket"
}

t_fifo_where_a_folder_is_expected() {
	prepare
	mkfifo "$T/v/OS2/BOOT"
	remember
	install_refused 1 "$T/v/OS2/BOOT is a FIFO where a folder is expected"
}

# ---- reserved destinations: exit 3 from the signed manifest ----

# The test package with \OS2\KEEP.SYS moved to DEST and signed again; its
# install is refused with exit 3 and MESSAGE before anything is written.
reserved() { # DEST MESSAGE
	prepare
	python3 "$TOOL" "manifest:\\OS2\\KEEP.SYS=>$1" "$T/good.wdp" "$T/bad.wdp" "$T/k/repo/test.key"
	remember
	wdt --root "$T/v" --keys "$T/k" install "$T/bad.wdp"
	refused 3 "$2"
	[ ! -e "$T/v/var" ] || fail "the state folder was made"
}

t_reserved_database() { reserved '\var\lib\warpdrv\warpdrv.db' "lies in warpdrv's state folder"; }
t_reserved_journal() { reserved '\VAR\LIB\WARPDRV\WARPDRV.DB-JOURNAL' "lies in warpdrv's state folder"; }
t_reserved_lock() { reserved '\Var\Lib\WarpDrv\lock' "lies in warpdrv's state folder"; }
t_reserved_kept_copy() { reserved '\VAR\LIB\WARPDRV\KEPT\0123' "lies in warpdrv's state folder"; }
t_reserved_generation() { reserved '\VAR\LIB\WARPDRV\GENERATIONS\1\CONFIG.SYS' "lies in warpdrv's state folder"; }
t_reserved_repo_key() { reserved '\VAR\LIB\WARPDRV\KEYS\REPO\EVIL.PUB' "lies in warpdrv's state folder"; }
t_reserved_license_key() { reserved '\var\lib\warpdrv\keys\license\evil.pub' "lies in warpdrv's state folder"; }
t_reserved_catalog_cache() { reserved '\VAR\CACHE\WARPDRV\CATALOG.DB' "lies in warpdrv's cache folder"; }
t_reserved_var_as_a_file() { reserved '\VAR' "is a folder warpdrv needs"; }
t_reserved_config_sys() { reserved '\CONFIG.SYS' "is CONFIG.SYS, which warpdrv changes only through its own edits"; }
t_reserved_config_sys_lower_case() { reserved '\config.sys' "is CONFIG.SYS"; }
t_reserved_protocol_ini() { reserved '\IBMCOM\PROTOCOL.INI' "is a PROTOCOL.INI"; }
t_reserved_protocol_ini_elsewhere() { reserved '\MPTS\Protocol.Ini' "is a PROTOCOL.INI"; }
t_reserved_temporary_name() { reserved '\OS2\BOOT\NEW.ADD.wd-new' "warpdrv writes its temporary files under such names"; }
t_reserved_temporary_name_upper_case() { reserved '\OS2\KEEP.SYS.WD-NEW' "'.wd-' in it"; }
t_name_is_a_device() { reserved '\OS2\NUL' "names an OS/2 device"; }
t_name_is_a_device_with_extension() { reserved '\OS2\COM1.SYS' "names an OS/2 device"; }
t_name_ends_in_a_dot() { reserved '\OS2\KEEP.' "ending in a dot"; }
t_name_not_ascii() { reserved $'\\OS2\\K\xc3\x84SE.SYS' "outside printable ASCII"; }
t_name_too_long_for_hpfs() { reserved "\\$(printf 'L%.0s' $(seq 255))" "longer than 254 characters"; }

# The same destinations in a recipe are refused when packing.
t_reserved_refused_when_packing() {
	make_key
	make_recipe
	sed -i 's/\\OS2\\KEEP.SYS/\\CONFIG.SYS/' "$T/recipe/MANIFEST"
	wda pack "$T/recipe" --key "$T/k/repo/test.key" --out "$T/bad.wdp"
	assert_rc 3
	assert_err "destination '\\CONFIG.SYS' is CONFIG.SYS"
	[ ! -e "$T/bad.wdp" ] || fail "a package was written"
}

# ---- memory: a ceiling whatever the package holds ----

under_limit() { # KIB PROGRAM ARGS...: run with `ulimit -v KIB`
	local kib=$1
	shift
	run bash -c 'ulimit -v "$0" && exec "$@"' "$kib" "$@"
}

no_asan() {
	! grep -qa __asan_init "$WD" || skip "AddressSanitizer cannot run under ulimit -v"
}

# 8 members of 60 MiB of zeros (each under the 64 MiB member cap): a 2 MiB
# package that unpacks to 480 MiB is refused from its manifest in a 256 MiB
# address space, cleanly, by info and by install.
t_package_of_zeros_under_a_memory_limit() {
	no_asan
	prepare
	python3 "$TOOL" zeros:8:60 "$T/good.wdp" "$T/zeros.wdp" "$T/k/repo/test.key"
	[ "$(stat -c %s "$T/zeros.wdp")" -lt $((4 << 20)) ] || fail "the package is not small"
	remember
	under_limit 262144 "$WD" --keys "$T/k" info "$T/zeros.wdp"
	assert_rc 3
	assert_err "its files add up to 503316532 bytes, more than the 128 MiB a package may unpack to"
	under_limit 262144 "$WD" --root "$T/v" --keys "$T/k" install "$T/zeros.wdp"
	assert_rc 3
	assert_err "more than the 128 MiB a package may unpack to"
	unchanged
}

# Under the ceiling but over the memory given: exit 1 with a message, never
# an abort (134).
t_out_of_memory_is_a_message() {
	no_asan
	prepare
	python3 "$TOOL" zeros:2:60 "$T/good.wdp" "$T/zeros.wdp" "$T/k/repo/test.key"
	remember
	under_limit 100000 "$WD" --root "$T/v" --keys "$T/k" install "$T/zeros.wdp"
	assert_rc 1
	assert_err "out of memory"
	unchanged
}

# ---- folders made case-insensitively ----

t_new_folder_spelled_two_ways_is_one_folder() {
	make_key
	make_volume "$T/v"
	mkdir -p "$T/r"
	cat >"$T/r/MANIFEST" <<'M'
format 1
name twocase
version 1.0
released 2024-01-01
summary Two spellings of one new folder
kind psd
file X.SYS \NEWDIR\SUB\X.SYS
file Y.SYS \newdir\sub\Y.SYS
file Z.SYS \NewDir\Z.SYS
M
	for f in X Y Z; do printf '%s\n' $f >"$T/r/$f.SYS"; done
	wda pack "$T/r" --key "$T/k/repo/test.key" --out "$T/two.wdp"
	assert_rc 0
	wd --root "$T/v" --keys "$T/k" install "$T/two.wdp"
	assert_rc 0
	[ "$(find "$T/v" -maxdepth 1 -iname newdir | wc -l)" -eq 1 ] || fail "more than one NEWDIR: $(ls "$T/v")"
	[ "$(find "$T/v/NEWDIR" -maxdepth 1 -iname sub | wc -l)" -eq 1 ] || fail "more than one SUB"
	for f in SUB/X.SYS SUB/Y.SYS Z.SYS; do
		[ -f "$T/v/NEWDIR/$f" ] || fail "NEWDIR/$f missing: $(find "$T/v/NEWDIR")"
	done
	wd --yes --root "$T/v" remove twocase
	assert_rc 0
	[ ! -e "$T/v/NEWDIR/SUB/X.SYS" ] || fail "remove left X.SYS"
}

# ---- test hooks: not in the installed program ----

t_installed_program_ignores_warpdrv_now() {
	command -v make >/dev/null || skip "no make"
	local b=${WARPDRV_BUILD:?}
	make -C "$SRC" --no-print-directory -s -j2 O="$b" release >"$T/make.log" 2>&1 ||
		fail "make release failed: $(tail -5 "$T/make.log")"
	printf 'PSD=OS2APIC.PSD\r\n' >"$T/CONFIG.SYS"
	mkdir -p "$T/v"
	mv "$T/CONFIG.SYS" "$T/v/"
	# a date past the bundled index's expiry: the test program believes it
	WARPDRV_NOW=2999-01-01 run "$WD" --root "$T/v" --repo "file://$b/repo" --keys "$b/keys" list
	assert_rc 3
	assert_err "expired on"
	WARPDRV_NOW=2999-01-01 run "$b/release/warpdrv" --root "$T/v" --repo "file://$b/repo" \
		--keys "$b/keys" list
	assert_rc 0
	assert_out "e1000"
	WARPDRV_NOW=not-a-date run "$b/release/warpdrv" --root "$T/v" --repo "file://$b/repo" \
		--keys "$b/keys" list
	assert_rc 0
	# the lock wait is the user's in the installed program too (test_lock.sh)
	WARPDRV_LOCK_WAIT=soon run "$b/release/warpdrv" --root "$T/v" list
	assert_rc 2
	assert_err "WARPDRV_LOCK_WAIT=soon: expected seconds"
	run "$b/release/warpdrv" --root "$T/v" --lock-wait=-1 list
	assert_rc 2
	assert_err "--lock-wait -1: expected seconds"
	# but not where /etc/warpdrv is: that is the test programs' hook alone
	WARPDRV_SYSCONFDIR="$T/etc" run "$b/release/warpdrv" --version
	assert_rc 0
	assert_out "/etc/warpdrv/keys"
	assert_no_out "$T/etc"
}

# ---- cases whose fix is in the transaction or the database code ----

t_lock_linked_to_a_host_file() {
	prepare
	mkdir -p "$T/v/var/lib/warpdrv"
	ln -s "$T/outside/victim" "$T/v/var/lib/warpdrv/lock"
	remember
	install_refused 1 "lock: is a symbolic link"
}

# warpdrv may make its own state (the lock) before it meets the link: the
# user's files and the sentinel are what must not change.
state_link_refused() { # STATUS MESSAGE COMMAND...
	local rc=$1 msg=$2
	shift 2
	S0=$(snapshot "$T/outside")
	U0=$(snapshot "$T/v" var)
	wdt "$@"
	[ "$RC" -ne 124 ] || fail "warpdrv hung"
	assert_rc "$rc"
	assert_err "$msg"
	[ "$(snapshot "$T/outside")" = "$S0" ] || fail "a file outside the volume changed"
	[ "$(snapshot "$T/v" var)" = "$U0" ] || fail "the volume's files changed"
}

t_kept_linked_out_of_the_volume() {
	prepare
	mkdir -p "$T/v/var/lib/warpdrv"
	ln -s "$T/outside/dir" "$T/v/var/lib/warpdrv/kept"
	state_link_refused 1 "kept is a symbolic link" --root "$T/v" --keys "$T/k" install "$T/good.wdp"
}

# An empty host file: SQLite would take it for a new database and write it.
t_database_linked_to_a_host_file() {
	prepare
	mkdir -p "$T/v/var/lib/warpdrv"
	: >"$T/outside/empty"
	ln -s "$T/outside/empty" "$T/v/var/lib/warpdrv/warpdrv.db"
	remember
	install_refused 1 "warpdrv.db: is a symbolic link"
	wdt --root "$T/v" list --installed
	refused 1 "warpdrv.db: is a symbolic link"
}

# A temporary name planted as a link (symbolic or hard) to a host file is a
# stale temporary: unlinked by handle (the link goes, not its target) and the
# file made afresh with O_EXCL; nothing outside the volume changes.
t_temporary_name_linked_to_a_host_file() {
	for kind in -s ""; do
		prepare
		rm -f "$T/v/OS2/KEEP.SYS.wd-new"
		ln $kind "$T/outside/victim" "$T/v/OS2/KEEP.SYS.wd-new"
		S0=$(snapshot "$T/outside")
		wdt --root "$T/v" --keys "$T/k" install "$T/good.wdp"
		[ "$RC" -ne 124 ] || fail "install hung"
		assert_rc 0
		[ "$(snapshot "$T/outside")" = "$S0" ] || fail "a file outside the volume changed (ln $kind)"
		[ ! -e "$T/v/OS2/KEEP.SYS.wd-new" ] || fail "the planted temporary is still there"
		wdt --yes --root "$T/v" remove testpkg
		assert_rc 0
	done
}

# A volume whose PCnet is replaced by E1000: CONFIG.SYS (0600, owner 1234)
# and PROTOCOL.INI (0444) are rewritten and keep their mode and owner.
t_rewritten_files_keep_mode_and_owner() {
	rm -rf "$T/v"
	cp -a "$FIX/volumes/arcaos-d-pcnet" "$T/v"
	cs=$(find "$T/v" -maxdepth 1 -iname config.sys)
	pi=$(find "$T/v" -ipath "$T/v/ibmcom/protocol.ini")
	chown 1234:1234 "$cs"
	chmod 0600 "$cs"
	chmod 0444 "$pi"
	printf '00:03.0 0200: 8086:100e (rev 02)\n' >"$T/lspci"
	wd --root "$T/v" --pci "lspci:$T/lspci" setup --yes
	assert_rc 0
	grep -q E1000 "$cs" || fail "CONFIG.SYS was not rewritten"
	[ "$(stat -c '%a %u %g' "$cs")" = "600 1234 1234" ] || fail "CONFIG.SYS is $(stat -c '%a %u %g' "$cs")"
	[ "$(stat -c '%a' "$pi")" = "444" ] || fail "PROTOCOL.INI is $(stat -c '%a' "$pi")"
}

t_generations_linked_out_of_the_volume() {
	rm -rf "$T/v"
	cp -a "$FIX/volumes/arcaos-d-pcnet" "$T/v"
	mkdir -p "$T/outside" "$T/v/var/lib/warpdrv"
	ln -s "$T/outside" "$T/v/var/lib/warpdrv/generations"
	printf '00:03.0 0200: 8086:100e (rev 02)\n' >"$T/lspci"
	state_link_refused 1 "generations is a symbolic link" --root "$T/v" --pci "lspci:$T/lspci" setup --yes
}

run_tests
