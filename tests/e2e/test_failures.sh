#!/usr/bin/env bash
# Failure paths: a command that fails after it began changing the volume puts
# it back before it exits (only a crash leaves recovery to the next run), and
# nothing wedges a volume: what can fail is checked before the intent is
# committed, and a recovery that cannot finish is got out of with
# `warpdrv recover --abandon`.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pkg_lib.sh"

PCI_GUEST="lspci:$FIX/pci/vbox-82540em.lspci-n"

# An activated copy of the eComStation sample at $T/s0.
activated_sample() {
	activated_copy "$T/s0"
}

# A small tmpfs at $T/m (root only), unmounted when the test ends.
small_disk() { # KIB
	[ "$(id -u)" = 0 ] || skip "mounting a small tmpfs needs root"
	mkdir -p "$T/m"
	mount -t tmpfs -o size="$1"k tmpfs "$T/m" 2>/dev/null || skip "cannot mount a tmpfs here"
	trap 'umount "$T/m" 2>/dev/null || true' EXIT
}

# The reproduction: setup on a disk that fills at its final commit used to
# leave CONFIG.SYS, PROTOCOL.INI and the new drivers in place with the
# transaction pending. Now the same failure leaves the volume as it was.
# The message of a full disk: the space check before anything is written
# ("not enough room"), or the write or commit that found it full.
disk_full_said() {
	grep -qE 'not enough room on the volume|No space left on device|database or disk is full' \
		"$T/err" || fail "no word of a full disk: $ERR"
}

t_setup_on_a_full_disk_leaves_the_volume_as_it_was() {
	activated_sample
	small_disk 360
	cp -a "$T/s0" "$T/m/v"
	before=$(snapshot "$T/m/v" var)
	wd --root "$T/m/v" --pci "$PCI_GUEST" setup --yes
	assert_rc 1
	disk_full_said
	assert_err "nothing was changed"
	[ "$(snapshot "$T/m/v" var)" = "$before" ] || fail "the volume changed"
	[ "$(pending "$T/m/v")" = 0 ] || fail "a transaction is pending"
	[ -z "$(ls -A "$T/m/v/var/lib/warpdrv/kept")" ] || fail "kept copies were left"
	[ ! -e "$T/m/v/var/lib/warpdrv/generations/1" ] || fail "a generation folder was left"
	[ "$(installed "$T/m/v")" = "" ] || fail "packages are listed"
	wd --root "$T/m/v" --json history
	assert_rc 0
	assert_json 'len(d["generations"]) == 0'
}

# Every disk size from too small to hold the change to big enough: each run
# either does all of it or leaves the volume exactly as it was.
t_setup_and_install_at_every_disk_size_are_all_or_nothing() {
	activated_sample
	# before and after, on a tmpfs too (its folders report other sizes)
	small_disk 2048
	cp -a "$T/s0" "$T/m/v"
	# the sizes are counted from what the volume takes before setup, so
	# that a database a table larger moves them with it
	local base
	base=$(df -k --output=used "$T/m" | tail -1 | tr -d ' ')
	before=$(snapshot "$T/m/v" var)
	wd --root "$T/m/v" --pci "$PCI_GUEST" setup --yes
	assert_rc 0
	after=$(snapshot "$T/m/v" var)
	umount "$T/m"
	local failed=0 done=0
	# (setup checks for room before writing, with a generous bound for the
	# database: below about 600 KiB it is refused before anything is written;
	# the sizes below 104 KiB above the volume are where the writes
	# themselves used to fill it)
	for add in 4 28 52 84 104 244 284 324 404; do
		kib=$((base + add))
		mount -t tmpfs -o size="$kib"k tmpfs "$T/m"
		cp -a "$T/s0" "$T/m/v"
		wd --root "$T/m/v" --pci "$PCI_GUEST" setup --yes
		now=$(snapshot "$T/m/v" var)
		if [ "$RC" -eq 0 ]; then
			[ "$now" = "$after" ] || fail "$kib KiB: setup said done but the volume is not set up"
			done=$((done + 1))
		else
			assert_rc 1
			assert_err "nothing was changed"
			[ "$now" = "$before" ] || fail "$kib KiB: failed ($ERR) and the volume changed"
			[ "$(pending "$T/m/v")" = 0 ] || fail "$kib KiB: a transaction is pending"
			failed=$((failed + 1))
		fi
		umount "$T/m"
	done
	[ "$failed" -gt 0 ] && [ "$done" -gt 0 ] || fail "$failed failed, $done done: the sizes miss the edge"
	# install the same way, at sizes around where it fills
	for add in 4 12 20 28 36; do
		kib=$((base + add))
		mount -t tmpfs -o size="$kib"k tmpfs "$T/m"
		cp -a "$T/s0" "$T/m/v"
		wd --root "$T/m/v" install mmlem
		if [ "$RC" -ne 0 ]; then
			assert_rc 1
			disk_full_said
			# (4 KiB above the volume it fails before its transaction,
			# remembering the catalog)
			! grep -q "transaction" "$T/err" || assert_err "nothing was changed"
			[ "$(snapshot "$T/m/v" var)" = "$before" ] || fail "$kib KiB: install failed ($ERR) and the volume changed"
			[ "$(pending "$T/m/v")" = 0 ] || fail "$kib KiB: a transaction is pending"
		fi
		umount "$T/m"
	done
}

# A damaged kept copy: remove refuses before it begins, naming the file.
t_a_damaged_kept_copy_makes_remove_refuse_up_front() {
	make_good_package
	make_volume "$T/v"
	wd --root "$T/v" --keys "$T/k" install "$T/good.wdp"
	assert_rc 0
	kept=$(ls "$T/v/var/lib/warpdrv/kept/")
	[ -n "$kept" ] || fail "no kept copy"
	printf 'damaged' >"$T/v/var/lib/warpdrv/kept/$kept"
	before=$(snapshot "$T/v")
	wd --yes --root "$T/v" remove testpkg
	assert_rc 1
	assert_err "var/lib/warpdrv/kept/$kept: the kept copy of \\OS2\\KEEP.SYS is damaged"
	assert_err "nothing was changed"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the volume changed"
	# missing, and a folder in its place: the same refusal
	rm "$T/v/var/lib/warpdrv/kept/$kept"
	mkdir "$T/v/var/lib/warpdrv/kept/$kept"
	before=$(snapshot "$T/v")
	wd --yes --root "$T/v" remove testpkg
	assert_rc 1
	assert_err "is missing or not a plain file"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the volume changed"
	[ "$(installed "$T/v")" = "testpkg" ] || fail "testpkg is no longer listed"
}

# A removal stopped by a crash, then its kept copy removed by hand: recovery
# cannot finish, says which file and what to do; every command refuses alike
# until `recover --abandon`, which forgets the transaction.
t_a_wedged_recovery_is_got_out_of_with_abandon() {
	make_good_package
	make_volume "$T/v"
	wd --root "$T/v" --keys "$T/k" install "$T/good.wdp"
	assert_rc 0
	RC=0
	WARPDRV_CRASH_AT=2 "$WD" --yes --root "$T/v" remove testpkg >/dev/null 2>&1 || RC=$?
	[ "$RC" -eq 99 ] || fail "exit $RC, not the injected crash"
	[ "$(pending "$T/v")" = 1 ] || fail "no transaction pending after the crash"
	kept=$(ls "$T/v/var/lib/warpdrv/kept/")
	rm "$T/v/var/lib/warpdrv/kept/$kept"
	before=$(snapshot "$T/v" var/lib/warpdrv/lock)
	# a read-only command does not try: it says what is pending
	wd --root "$T/v" list --installed
	assert_rc 0
	assert_err "the interrupted removal of testpkg is pending on this volume"
	assert_err "'warpdrv recover' finishes or undoes it"
	[ "$(snapshot "$T/v" var/lib/warpdrv/lock)" = "$before" ] || fail "list changed the volume"
	for cmd in "recover" "remove testpkg"; do
		wd --root "$T/v" $cmd
		assert_rc 1
		assert_err "finishing an interrupted removal of testpkg"
		assert_err "var/lib/warpdrv/kept/$kept: the kept copy of OS2/KEEP.SYS is missing"
		assert_err "'warpdrv recover --abandon' forgets the interrupted transaction"
		[ "$(snapshot "$T/v" var/lib/warpdrv/lock)" = "$before" ] || fail "$cmd changed the volume"
	done
	files=$(snapshot "$T/v" var)
	wd --root "$T/v" recover --abandon
	assert_rc 0
	assert_out "Abandoned the interrupted removal of testpkg"
	[ "$(pending "$T/v")" = 0 ] || fail "the transaction is still pending"
	[ "$(snapshot "$T/v" var)" = "$files" ] || fail "abandon changed the files"
	[ "$(installed "$T/v")" = "testpkg" ] || fail "the package's rows changed"
	wd --root "$T/v" --json history
	assert_rc 0
	assert_json 'any(e["action"] == "abandon" and e["command"] == "remove" and e["packages"] == ["testpkg"] for e in d["history"])'
	before=$(snapshot "$T/v")
	wd --root "$T/v" recover
	assert_rc 0
	assert_out "nothing to do"
	wd --root "$T/v" recover --abandon
	assert_rc 0
	assert_out "nothing to do"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "recover with nothing to do wrote"
	# nor on a volume warpdrv never wrote to
	make_volume "$T/fresh"
	wd --root "$T/fresh" recover
	assert_rc 0
	[ ! -e "$T/fresh/var" ] || fail "recover made the state folder"
}

# A removal that failed half-way (a file moved aside) and was then stopped:
# abandon puts the package's file back rather than losing it.
t_abandon_puts_back_what_a_removal_moved_aside() {
	make_good_package
	make_volume "$T/v"
	wd --root "$T/v" --keys "$T/k" install "$T/good.wdp"
	assert_rc 0
	installed_files=$(snapshot "$T/v" var)
	# stop after the first file was moved aside (steps: intent, tmp checks, moves)
	local n
	for n in 3 4 5; do
		rm -rf "$T/c"
		cp -a "$T/v" "$T/c"
		RC=0
		WARPDRV_CRASH_AT=$n "$WD" --yes --root "$T/c" remove testpkg >/dev/null 2>&1 || RC=$?
		[ "$RC" -eq 99 ] || fail "exit $RC, not the injected crash"
		ls "$T/c/var/lib/warpdrv/kept/" | grep -q '^removing-' && break
	done
	ls "$T/c/var/lib/warpdrv/kept/" | grep -q '^removing-' || fail "no file was moved aside"
	wd --root "$T/c" recover --abandon
	assert_rc 0
	assert_out "the files it had moved aside are back in place"
	[ -z "$(ls "$T/c/var/lib/warpdrv/kept/" | grep '^removing-' || true)" ] || fail "a file is still aside"
	[ -f "$T/c/IBMCOM/MACS/TEST.OS2" ] || fail "TEST.OS2 was lost"
}

# A removal deletes what it moved aside after its commit: a crash before the
# kept folder is flushed can bring those files back. What it leaves is deleted
# by the next transaction (an install here), and left alone by a command that
# only reads.
t_files_a_crash_left_aside_go_with_the_next_transaction() {
	make_good_package
	make_volume "$T/v"
	wd --root "$T/v" --keys "$T/k" install "$T/good.wdp"
	assert_rc 0
	wd --yes --root "$T/v" remove testpkg
	assert_rc 0
	local kept="$T/v/var/lib/warpdrv/kept"
	[ -z "$(ls "$kept" | grep '^removing-' || true)" ] || fail "the removal left a file aside"
	# what lost deletes would leave: the moved files, under their aside names
	printf 'driver\r\n' >"$kept/removing-0"
	printf 'more\r\n' >"$kept/removing-7"
	wd --root "$T/v" list --installed
	assert_rc 0
	[ -f "$kept/removing-0" ] && [ -f "$kept/removing-7" ] || fail "a reading command deleted them"
	wd --root "$T/v" --keys "$T/k" install "$T/good.wdp"
	assert_rc 0
	[ -z "$(ls "$kept" | grep '^removing-' || true)" ] || fail "still aside: $(ls "$kept")"
	[ -f "$T/v/IBMCOM/MACS/TEST.OS2" ] || fail "the install did not put TEST.OS2 in place"
}

# The clock guard learns the date from every command that writes to the
# volume: an install, a removal, a repository added, not only setup and
# activation. Set back behind it afterwards, the clock is caught.
t_every_writing_command_teaches_the_clock_guard() {
	cp -a "$FIX/volumes/ecs21-e1000" "$T/v"
	wda issue --key "$WARPDRV_BUILD/keys/license/dev.key" --customer 7 \
		--entitlements drivers,acpi --issued 2026-01-01 --expires 2099-12-31
	assert_rc 0
	key=$OUT
	WARPDRV_NOW=2026-11-29 wd --root "$T/v" activate "$key"
	assert_rc 0
	last_seen() { python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT value FROM meta WHERE key = ?", ("last_seen",)).fetchone()[0])' "$T/v/var/lib/warpdrv/warpdrv.db"; }
	[ "$(last_seen)" = 2026-11-29 ] || fail "activation did not note its date"
	WARPDRV_NOW=2027-11-29 wd --root "$T/v" install pcntnd
	assert_rc 0
	[ "$(last_seen)" = 2027-11-29 ] || fail "install did not note its date: $(last_seen)"
	WARPDRV_NOW=2028-01-10 wd --yes --root "$T/v" remove pcntnd
	assert_rc 0
	[ "$(last_seen)" = 2028-01-10 ] || fail "remove did not note its date: $(last_seen)"
	WARPDRV_NOW=2028-02-01 wd --root "$T/v" repo add mirror "file://$T/nowhere"
	assert_rc 0
	[ "$(last_seen)" = 2028-02-01 ] || fail "repo add did not note its date: $(last_seen)"
	# a command that fails writes nothing, the date included
	WARPDRV_NOW=2029-01-01 WARPDRV_FAIL_AT=3 wd --root "$T/v" install pcntnd
	assert_rc 1
	[ "$(last_seen)" = 2028-02-01 ] || fail "a failed install noted its date"
	# the clock set back behind the newest of them is caught
	WARPDRV_NOW=2027-12-01 wd --root "$T/v" --json license
	assert_rc 4
	assert_json 'd["state"] == "clock" and "today is 2027-12-01" in d["reason"] and "2028-02-01" in d["reason"]'
	before=$(snapshot "$T/v")
	WARPDRV_NOW=2027-12-01 wd --root "$T/v" install mmlem
	assert_rc 4
	assert_err "the clock looks set back"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the refused install changed the volume"
}

# Two installs of one package at once, 50 times: each time one installs and
# the other finds it installed (exit 0, "already installed"), never "belongs
# to the installed package" from a plan that read the database half before
# and half after the other's commit.
t_two_concurrent_installs_of_one_package() {
	mkdir -p "$T/base"
	printf 'REM race\r\n' >"$T/base/CONFIG.SYS"
	wd --root "$T/base" repo add elsewhere "file://$T/nowhere" # a database to read
	assert_rc 0
	cp -a "$T/base" "$T/want"
	wd --root "$T/want" install pcntnd
	assert_rc 0
	want=$(snapshot "$T/want" var)
	local i rc1 rc2
	for i in $(seq 50); do
		rm -rf "$T/r"
		cp -a "$T/base" "$T/r"
		rc1=0 rc2=0
		WARPDRV_LOCK_WAIT=20 "$WD" --root "$T/r" install pcntnd >"$T/o1" 2>"$T/e1" &
		WARPDRV_LOCK_WAIT=20 "$WD" --root "$T/r" install pcntnd >"$T/o2" 2>"$T/e2" || rc2=$?
		wait $! || rc1=$?
		[ "$rc1" = 0 ] && [ "$rc2" = 0 ] || fail "run $i: exit $rc1 and $rc2: $(cat "$T/e1" "$T/e2")"
		cat "$T/o1" "$T/o2" | sort >"$T/both"
		printf '%s\n' "Installed pcntnd 4.13 (2 files)." "pcntnd 4.13 is already installed." >"$T/expect"
		cmp -s "$T/both" "$T/expect" || fail "run $i: $(cat "$T/both" "$T/e1" "$T/e2")"
		[ "$(snapshot "$T/r" var)" = "$want" ] || fail "run $i: the volume is not as one install leaves it"
	done
}

run_tests
