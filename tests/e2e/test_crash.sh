#!/usr/bin/env bash
# Crash safety, tested rather than argued: install and remove are stopped at
# every durable step in turn (WARPDRV_CRASH_AT=N: each write, flush, rename,
# unlink, mkdir and database commit), then warpdrv runs again on the volume.
# The volume must hold exactly the files before or the files after, byte for
# byte, and the database must agree. CRASH_STEPS=FILE collects the step
# counts of every case (run the script alone to have them).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pkg_lib.sh"

# Crashes `warpdrv ARGS` at step 1, 2, ... on a copy of FROM until a run
# completes; each time recovers and checks the result is BEFORE (with the
# database listing PKGS_BEFORE) or AFTER (PKGS_AFTER). Prints the step count.
crash_every_step() { # FROM BEFORE PKGS_BEFORE AFTER PKGS_AFTER ARGS...
	local from=$1 before=$2 pb=$3 after=$4 pa=$5
	shift 5
	local n=1 saw_before=0 saw_after=0
	while :; do
		rm -rf "$T/c"
		cp -a "$from" "$T/c"
		RC=0
		WARPDRV_CRASH_AT=$n "$WD" --yes --root "$T/c" --keys "$T/k" "$@" >/dev/null 2>"$T/crash.err" || RC=$?
		[ "$RC" -eq 0 ] && break
		[ "$RC" -eq 99 ] || fail "step $n: exit $RC, not the injected crash: $(cat "$T/crash.err")"
		wd --root "$T/c" recover # (list, a read-only command, would only tell)
		assert_rc 0
		pkgs=$(installed "$T/c")
		now=$(snapshot "$T/c" var)
		if [ "$now" = "$before" ] && [ "$pkgs" = "$pb" ]; then
			saw_before=$((saw_before + 1))
		elif [ "$now" = "$after" ] && [ "$pkgs" = "$pa" ]; then
			saw_after=$((saw_after + 1))
		else
			(cd "$T/c" && find . -path ./var -prune -o -type f -print | sort) >&2
			fail "step $n: the volume is neither before nor after (database lists '$pkgs')"
		fi
		wd --root "$T/c" verify
		assert_rc 0
		[ -z "$(find "$T/c" -name '*.wd-new')" ] || fail "step $n: a temporary file was left"
		n=$((n + 1))
	done
	# the run that was not stopped must also have produced "after"
	[ "$(snapshot "$T/c" var)" = "$after" ] || fail "the uninterrupted run is not 'after'"
	[ $((n - 1)) -ge 5 ] || fail "only $((n - 1)) steps: is fault injection working?"
	echo "$* : $((n - 1)) steps, $saw_before recovered to before, $saw_after to after"
}

# The kept copies warpdrv holds on a volume, by name.
kept_list() { # VOLUME
	[ ! -d "$1/var/lib/warpdrv/kept" ] || (cd "$1/var/lib/warpdrv/kept" && find . -type f | sort)
}

# What a failed run left pending in the database (0: nothing to recover).
# Makes step 1, 2, ... of `warpdrv ARGS` fail in turn (WARPDRV_FAIL_AT=N,
# ENOSPC, and N:EIO where EIO is given), on a copy of FROM, until a run
# completes. A failure is not a crash: right after the failing command, before
# any next run, the volume must be BEFORE byte for byte, the database must
# list PKGS_BEFORE with nothing pending, and the message must say so.
# STEPS=N: the command has N steps (its crash count), and a failure past the
# point where recovery rolls forward (an upgrade's last steps) is finished
# at once: exit 0 and AFTER.
fail_every_step() { # FROM BEFORE PKGS_BEFORE AFTER EIO|ENOSPC ARGS...
	local from=$1 before=$2 pb=$3 after=$4 how=$5
	shift 5
	local n=1 kept0 forward=0
	kept0=$(kept_list "$from")
	while :; do
		rm -rf "$T/c"
		cp -a "$from" "$T/c"
		RC=0
		WARPDRV_FAIL_AT=$n:$how "$WD" --yes --root "$T/c" --keys "$T/k" "$@" >/dev/null 2>"$T/fail.err" || RC=$?
		if [ "$RC" -eq 0 ] && [ "$n" -le "${STEPS:-0}" ]; then
			[ "$(snapshot "$T/c" var)" = "$after" ] ||
				fail "step $n: finished after its failure, but the volume is not as after"
			[ "$(pending "$T/c")" = 0 ] || fail "step $n: a transaction was left pending"
			forward=$((forward + 1))
			n=$((n + 1))
			continue
		fi
		[ "$RC" -eq 0 ] && break
		[ "$forward" -eq 0 ] || fail "step $n failed and was put back after a later step finished"
		[ "$RC" -eq 1 ] || fail "step $n: exit $RC, not 1: $(cat "$T/fail.err")"
		want="No space left on device"
		[ "$how" = ENOSPC ] || want="Input/output error"
		grep -qF "$want" "$T/fail.err" || fail "step $n: the message does not name the error: $(cat "$T/fail.err")"
		grep -qF "nothing was changed" "$T/fail.err" || fail "step $n: the message does not say nothing was changed: $(cat "$T/fail.err")"
		[ "$(pending "$T/c")" = 0 ] || fail "step $n: a transaction was left pending: $(cat "$T/fail.err")"
		[ "$(snapshot "$T/c" var)" = "$before" ] || {
			(cd "$T/c" && find . -path ./var -prune -o -type f -print | sort) >&2
			fail "step $n: the volume is not as it was right after the failure: $(cat "$T/fail.err")"
		}
		[ "$(kept_list "$T/c")" = "$kept0" ] ||
			fail "step $n: the kept folder is not as it was"
		[ "$(installed "$T/c")" = "$pb" ] || fail "step $n: the database does not list '$pb'"
		wd --root "$T/c" verify
		assert_rc 0
		n=$((n + 1))
	done
	[ "$(snapshot "$T/c" var)" = "$after" ] || fail "the run without a failure is not 'after'"
	[ $((n - 1)) -ge 5 ] || fail "only $((n - 1)) steps: is fault injection working?"
	if [ "$forward" -gt 0 ]; then
		echo "$* ($how): $((n - 1)) steps failed, $((n - 1 - forward)) put back at once, $forward finished at once"
	else
		echo "$* ($how): $((n - 1)) steps failed, each put back at once"
	fi
}

t_install_and_remove_survive_a_crash_at_every_step() {
	make_good_package
	make_volume "$T/v0"
	before=$(snapshot "$T/v0" var)
	# the state after: installed on a copy without crashing
	cp -a "$T/v0" "$T/v1"
	wd --root "$T/v1" --keys "$T/k" install "$T/good.wdp"
	assert_rc 0
	after=$(snapshot "$T/v1" var)
	crash_every_step "$T/v0" "$before" "" "$after" "testpkg" install "$T/good.wdp" | tee "$T/summary"
	# removal: from installed back to the original files (folders made stay)
	cp -a "$T/v1" "$T/v2"
	wd --yes --root "$T/v2" remove testpkg
	removed=$(snapshot "$T/v2" var)
	crash_every_step "$T/v1" "$after" "testpkg" "$removed" "" remove testpkg | tee -a "$T/summary"
	grep -q "install.*steps" "$T/summary" && grep -q "remove.*steps" "$T/summary"
	# the same steps failing (a full disk, an I/O error) instead of stopping
	for how in ENOSPC EIO; do
		fail_every_step "$T/v0" "$before" "" "$after" $how install "$T/good.wdp" | tee -a "$T/summary"
		fail_every_step "$T/v1" "$after" "testpkg" "$removed" $how remove testpkg | tee -a "$T/summary"
	done
	grep -q "install.*(EIO): [0-9]* steps" "$T/summary" && grep -q "remove.*(ENOSPC): [0-9]* steps" "$T/summary"
	# the counts, for whoever wants to know how many steps were covered
	[ -z "${CRASH_STEPS:-}" ] || cp "$T/summary" "$CRASH_STEPS"
}

# An upgrade rewrites one file of the old version (TEST.OS2), retires two
# (NEW.ADD deleted; KEEP.SYS, which had replaced the OS's, gives the
# original back) and adds one (OTHER.SYS), in one transaction: stopped
# anywhere, the volume holds 1.0 with its files or 1.1 with its files.
t_upgrade_survives_a_crash_at_every_step() {
	make_good_package
	make_volume "$T/v0"
	wd --root "$T/v0" --keys "$T/k" install "$T/good.wdp"
	assert_rc 0
	before=$(snapshot "$T/v0" var)
	mkdir -p "$T/r11" "$T/new"
	sed -e 's/^version 1.0/version 1.1/' -e '/KEEP.SYS/d' -e 's/NEW.ADD \\OS2\\BOOT\\NEW.ADD/OTHER.SYS \\OS2\\OTHER.SYS/' \
		"$T/recipe/MANIFEST" >"$T/r11/MANIFEST"
	grep -q 'OTHER.SYS' "$T/r11/MANIFEST" || fail "the 1.1 recipe was not made"
	printf 'test driver 1.1\n' >"$T/r11/TEST.OS2"
	printf 'other driver\n' >"$T/r11/OTHER.SYS"
	wda pack "$T/r11" --key "$T/k/repo/test.key" --out "$T/new/testpkg-1.1.wdp"
	assert_rc 0
	wda index "$T/new" --key "$T/k/repo/test.key"
	assert_rc 0
	cp -a "$T/v0" "$T/v1"
	wd --root "$T/v1" --keys "$T/k" --repo "$T/new" upgrade --yes
	assert_rc 0
	after=$(snapshot "$T/v1" var)
	grep -q "the KEEP.SYS the OS shipped" "$T/v1/OS2/KEEP.SYS" || fail "the original KEEP.SYS is not back"
	[ ! -e "$T/v1/OS2/BOOT/NEW.ADD" ] || fail "NEW.ADD stayed"
	WITH_VERSIONS=1 crash_every_step "$T/v0" "$before" "testpkg=1.0" "$after" "testpkg=1.1" \
		--repo "$T/new" upgrade --yes | tee "$T/summary"
	grep -q "upgrade --yes : [0-9]* steps" "$T/summary"
	# each of its steps failing instead (a full disk): put back at once
	steps=$(sed -n 's/.*upgrade --yes : \([0-9]*\) steps.*/\1/p' "$T/summary")
	WITH_VERSIONS=1 STEPS=$steps fail_every_step "$T/v0" "$before" "testpkg=1.0" "$after" ENOSPC \
		--repo "$T/new" upgrade --yes | tee -a "$T/summary"
	grep -q "upgrade --yes (ENOSPC): $steps steps failed" "$T/summary"
	# a package that replaces testpkg: one transaction too
	sed -e 's/^name testpkg/name other/' -e 's/^version 1.1/version 2.0/' "$T/r11/MANIFEST" >"$T/r11/M2"
	printf 'replaces testpkg\n' >>"$T/r11/M2"
	mv "$T/r11/M2" "$T/r11/MANIFEST"
	wda pack "$T/r11" --key "$T/k/repo/test.key" --out "$T/other.wdp"
	assert_rc 0
	cp -a "$T/v0" "$T/v2"
	wd --root "$T/v2" --keys "$T/k" install "$T/other.wdp"
	assert_rc 0
	assert_out "Removed testpkg 1.0 (replaced by other)"
	replaced=$(snapshot "$T/v2" var)
	WITH_VERSIONS=1 crash_every_step "$T/v0" "$before" "testpkg=1.0" "$replaced" "other=2.0" \
		install "$T/other.wdp" | tee -a "$T/summary"
	[ -z "${CRASH_STEPS:-}" ] || cat "$T/summary" >>"$CRASH_STEPS"
}

# An upgrade whose new MMLEM renames the driver rewrites CONFIG.SYS and
# PROTOCOL.INI with the files, in one transaction: stopped anywhere, the
# guest boots 2.06 with its lines or 2.07 with the new ones.
t_an_upgrade_that_rewrites_the_boot_files_survives_a_crash_at_every_step() {
	make_key
	activated_copy "$T/s0"
	wd --root "$T/s0" --pci "lspci:$FIX/pci/vbox-82540em.lspci-n" setup --yes
	assert_rc 0
	before=$(snapshot "$T/s0" var)
	d="$T/m207"
	cp -R "$SRC/drivers/mmlem" "$d"
	sed -i -e 's/^version .*/version 2.07/' -e 's/MMLEM/MMLEMX/g' "$d/MANIFEST"
	sed 's/MMLEM/MMLEMX/g' "$d/MMLEM.NIF" >"$d/MMLEMX.NIF"
	printf 'MMLEMX 2.07 stand-in\n' >"$d/MMLEMX.OS2"
	rm "$d/MMLEM.NIF" "$d/MMLEM.OS2"
	mkdir -p "$T/repo"
	wda pack "$d" --key "$T/k/repo/test.key" --out "$T/repo/"
	wda index "$T/repo" --key "$T/k/repo/test.key"
	assert_rc 0
	cp -a "$T/s0" "$T/s1"
	wd --root "$T/s1" --keys "$T/k" --repo "$T/repo" upgrade --yes
	assert_rc 0
	grep -q 'MMLEMX.OS2' "$T/s1/CONFIG.SYS" || fail "the upgrade did not rewrite CONFIG.SYS"
	after=$(snapshot "$T/s1" var)
	WITH_VERSIONS=1 crash_every_step "$T/s0" "$before" "acpi-psd=3.23.16 mmlem=2.06" \
		"$after" "acpi-psd=3.23.16 mmlem=2.07" --repo "$T/repo" upgrade --yes |
		tee "$T/summary"
	grep -q "upgrade --yes : [0-9]* steps" "$T/summary"
	[ -z "${CRASH_STEPS:-}" ] || cat "$T/summary" >>"$CRASH_STEPS"
}

# The main job: setup installs two packages and rewrites CONFIG.SYS and
# PROTOCOL.INI in one transaction. Stopped at any step, the next run leaves
# the guest booting the old way or the new way, never a mix.
t_setup_survives_a_crash_at_every_step() {
	mkdir -p "$T/k"
	activated_copy "$T/s0"
	before=$(snapshot "$T/s0" var)
	pci="lspci:$FIX/pci/vbox-82540em.lspci-n"
	cp -a "$T/s0" "$T/s1"
	wd --root "$T/s1" --pci "$pci" setup --yes
	assert_rc 0
	after=$(snapshot "$T/s1" var)
	[ "$before" != "$after" ] || fail "setup changed nothing"
	crash_every_step "$T/s0" "$before" "" "$after" "acpi-psd mmlem" --pci "$pci" setup --yes |
		tee "$T/summary"
	grep -q "setup --yes : [0-9]* steps" "$T/summary"
	# (EIO takes the same paths; the install and remove above try both)
	fail_every_step "$T/s0" "$before" "" "$after" ENOSPC --pci "$pci" setup --yes | tee -a "$T/summary"
	grep -q "setup --yes (ENOSPC): [0-9]* steps" "$T/summary"
	[ -z "${CRASH_STEPS:-}" ] || cat "$T/summary" >>"$CRASH_STEPS"
}

# Every missing folder above a new file is made (and undone), however deep:
# 80 here, past any fixed count.
t_a_file_eighty_folders_deep_installs_and_removes() {
	make_key
	mkdir -p "$T/deep"
	dest=$(printf '\\A%.0s' $(seq 80))
	printf 'format 1\nname deep\nversion 1.0\nreleased 2024-01-01\nsummary Deep\nkind psd\nfile X.SYS %s\\X.SYS\n' \
		"$dest" >"$T/deep/MANIFEST"
	printf 'deep\n' >"$T/deep/X.SYS"
	wda pack "$T/deep" --key "$T/k/repo/test.key" --out "$T/deep.wdp"
	assert_rc 0
	make_volume "$T/v"
	wd --root "$T/v" --keys "$T/k" install "$T/deep.wdp"
	assert_rc 0
	f="$T/v/$(printf 'A/%.0s' $(seq 80))X.SYS"
	[ -f "$f" ] || fail "X.SYS is not 80 folders deep"
	wd --root "$T/v" verify
	assert_rc 0
	wd --yes --root "$T/v" remove deep
	assert_rc 0
	[ ! -e "$f" ] || fail "remove left X.SYS"
	# stopped just before its last mkdir (step 1 is the intent), the next run
	# takes every folder away again
	make_volume "$T/c"
	RC=0
	WARPDRV_CRASH_AT=81 "$WD" --root "$T/c" --keys "$T/k" install "$T/deep.wdp" >/dev/null 2>&1 || RC=$?
	[ "$RC" -eq 99 ] || fail "exit $RC, not the injected crash"
	[ -d "$T/c/A" ] || fail "the crash came before the folders"
	wd --root "$T/c" recover
	assert_rc 0
	[ "$(installed "$T/c")" = "" ] || fail "the interrupted install is listed"
	[ ! -e "$T/c/A" ] || fail "the undo left folders behind"
}

# A power cut just after the final commit: the LD_PRELOAD shim
# (tests/shim/lost_unlink.c) puts back at exit every -journal file whose
# unlink was not made durable by a flush of its folder, as a lost unlink
# would. A commit warpdrv reported must survive it: no hot journal is left to
# roll it back.
SHIM=${WARPDRV_BUILD:-}/lost_unlink.so
need_shim() {
	[ -f "$SHIM" ] || skip "no $SHIM (make builds it)"
}
shimmed() { # ARGS... (a warpdrv run under the shim)
	RC=0
	ASAN_OPTIONS=${ASAN_OPTIONS:-}:verify_asan_link_order=0 LD_PRELOAD="$SHIM" "$WD" "$@" \
		>"$T/out" 2>"$T/err" </dev/null || RC=$?
	OUT=$(cat "$T/out")
	ERR=$(cat "$T/err")
}

# The shim itself: an SQLite commit with synchronous=FULL loses its unlink
# under it (so the test below tests something); with EXTRA it does not.
t_the_power_cut_shim_loses_an_unflushed_unlink() {
	need_shim
	command -v sqlite3 >/dev/null || skip "no sqlite3 program (scripts/deps.sh installs it)"
	sqlite3 "$T/t.db" "CREATE TABLE t (a); INSERT INTO t VALUES (1);"
	LD_PRELOAD="$SHIM" sqlite3 "$T/t.db" "PRAGMA synchronous = FULL; INSERT INTO t VALUES (2);"
	[ -f "$T/t.db-journal" ] || fail "the shim did not put the journal back"
	[ "$(sqlite3 "$T/t.db" "SELECT count(*) FROM t")" = 1 ] || fail "the hot journal did not roll back"
	LD_PRELOAD="$SHIM" sqlite3 "$T/t.db" "PRAGMA synchronous = EXTRA; INSERT INTO t VALUES (3);"
	[ ! -e "$T/t.db-journal" ] || fail "a flushed unlink was put back"
	[ "$(sqlite3 "$T/t.db" "SELECT count(*) FROM t")" = 2 ] || fail "the EXTRA commit was lost"
	# by folder handle too (unlinkat), as warpdrv's SQLite layer deletes it
	printf 'j' >"$T/u.db-journal"
	LD_PRELOAD="$SHIM" python3 -c 'import os, sys
d = os.open(sys.argv[1], os.O_RDONLY)
os.unlink("u.db-journal", dir_fd=d)' "$T"
	[ -f "$T/u.db-journal" ] || fail "the shim did not put back a journal unlinked by handle"
	printf 'j' >"$T/w.db-journal"
	LD_PRELOAD="$SHIM" python3 -c 'import os, sys
d = os.open(sys.argv[1], os.O_RDONLY)
os.unlink("w.db-journal", dir_fd=d)
os.fsync(d)' "$T"
	[ ! -e "$T/w.db-journal" ] || fail "an unlink by handle flushed with its folder was put back"
}

t_a_committed_install_survives_a_power_cut() {
	need_shim
	make_good_package
	make_volume "$T/v0"
	cp -a "$T/v0" "$T/v1"
	wd --root "$T/v1" --keys "$T/k" install "$T/good.wdp"
	assert_rc 0
	after=$(snapshot "$T/v1" var)
	shimmed --root "$T/v0" --keys "$T/k" install "$T/good.wdp"
	assert_rc 0
	[ ! -e "$T/v0/var/lib/warpdrv/warpdrv.db-journal" ] || fail "a hot journal was left"
	[ "$(installed "$T/v0")" = "testpkg" ] || fail "the install was rolled back"
	[ "$(snapshot "$T/v0" var)" = "$after" ] || fail "the volume is not as installed"
	wd --root "$T/v0" verify
	assert_rc 0
}

t_a_committed_setup_survives_a_power_cut() {
	need_shim
	activated_copy "$T/s0"
	pci="lspci:$FIX/pci/vbox-82540em.lspci-n"
	cp -a "$T/s0" "$T/s1"
	wd --root "$T/s1" --pci "$pci" setup --yes
	assert_rc 0
	after=$(snapshot "$T/s1" var)
	shimmed --root "$T/s0" --pci "$pci" setup --yes
	assert_rc 0
	[ ! -e "$T/s0/var/lib/warpdrv/warpdrv.db-journal" ] || fail "a hot journal was left"
	[ "$(installed "$T/s0")" = "acpi-psd mmlem" ] || fail "the setup was rolled back"
	[ "$(snapshot "$T/s0" var)" = "$after" ] || fail "the volume is not as set up"
	wd --root "$T/s0" --json history
	assert_rc 0
	assert_json 'len(d["generations"]) == 1'
}

# the cases share nothing but the build: two at a time
CASES_AT_ONCE=${CASES_AT_ONCE:-2} run_tests
