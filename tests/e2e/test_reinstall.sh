#!/usr/bin/env bash
# warpdrv reinstall and verify --fix: a damaged driver that CONFIG.SYS loads
# is put back from its package (the installed version, signature checked) in
# one transaction; the originals the first install kept stay kept; the
# configuration files are not touched; the history says "reinstall". Each
# bad input leaves the volume's bytes as they were; a crash at any step
# leaves the damaged files or the repaired ones, never a mix.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pkg_lib.sh"
. "$(dirname "$0")/setup_lib.sh"
. "$(dirname "$0")/steps_lib.sh"

MMLEM='IBMCOM/MACS/MMLEM.OS2'

# $T/v: the eComStation fixture whose IBMCOM\MACS holds an MMLEM.OS2 of the
# OS's own (kept by the install), with a subscription, set up for the
# 82540EM: CONFIG.SYS loads MMLEM.OS2. $T/setup: a copy of it then.
set_up() {
	volume ecs21-e1000
	printf 'the MMLEM.OS2 the OS shipped\r\n' >"$T/v/$MMLEM"
	subscribe drivers,acpi
	listing "00:03.0 8086:100e"
	wd --root "$T/v" --pci "lspci:$T/lspci" setup --yes
	assert_rc 0
	grep -q 'MMLEM.OS2' "$T/v/CONFIG.SYS" || fail "setup did not configure MMLEM"
	rm -rf "$T/setup"
	cp -a "$T/v" "$T/setup"
}

# The kept copies (the OS's originals) on a volume: name and content digest.
kept() { # VOLUME
	(cd "$1/var/lib/warpdrv/kept" && find . -type f -print0 | sort -z | xargs -0 -r sha256sum)
}

t_a_damaged_driver_that_config_sys_loads_is_reinstalled() {
	set_up
	kept0=$(kept "$T/v")
	grep -rqs "the MMLEM.OS2 the OS shipped" "$T/v/var/lib/warpdrv/kept" || fail "the OS's MMLEM.OS2 was not kept"
	printf 'garbage' >>"$T/v/$MMLEM"
	wd --root "$T/v" verify
	assert_rc 3
	assert_err '\IBMCOM\MACS\MMLEM.OS2: size differs (mmlem)'
	assert_err "'warpdrv verify --fix' reinstalls their packages"
	# (remove mmlem would put the OS's MMLEM.OS2 back, which is not the
	# repair; remove of a package whose loaded files have no original is
	# refused, naming the command for that package)
	before=$(snapshot "$T/v")
	wd --yes --root "$T/v" remove acpi-psd
	assert_rc 1
	assert_err "loads ACPIDAEMON.EXE"
	assert_err "Turn it off first (warpdrv configure acpi --off)"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the refused remove changed the volume"
	# the dry run shows the plan and writes nothing
	wd --root "$T/v" --dry-run reinstall mmlem
	assert_rc 0
	assert_out "Reinstall mmlem 2.06:"
	assert_out 'put back                 \IBMCOM\MACS\MMLEM.OS2'
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the dry run changed the volume"
	wd --root "$T/v" reinstall MMLEM
	assert_rc 0
	assert_out "Reinstalled mmlem 2.06 (2 files)."
	wd --root "$T/v" verify
	assert_rc 0
	assert_out "all as installed"
	cmp -s "$T/setup/$MMLEM" "$T/v/$MMLEM" || fail "MMLEM.OS2 is not the package's again"
	for f in CONFIG.SYS IBMCOM/PROTOCOL.INI; do
		assert_same_file "$T/setup/$f" "$T/v/$f"
	done
	[ "$(kept "$T/v")" = "$kept0" ] || fail "the kept originals changed"
	[ "$(installed "$T/v")" = "acpi-psd mmlem" ] || fail "the installed packages changed"
	wd --root "$T/v" --json history
	assert_rc 0
	assert_json "any(h['action'] == 'reinstall' and h['package'] == 'mmlem' and h['version'] == '2.06' for h in d['history'])"
	# no generation: the configuration files were not touched
	assert_json "len(d['generations']) == 1"
	# the original comes back when the package goes (after another driver is configured)
	wd --yes --root "$T/v" --pci "lspci:$T/lspci" configure nic --off
	assert_rc 0
	wd --yes --root "$T/v" remove mmlem
	assert_rc 0
	grep -q "the MMLEM.OS2 the OS shipped" "$T/v/$MMLEM" || fail "the original MMLEM.OS2 is not back"
}

t_a_deleted_file_is_put_back_and_two_packages_are_one_transaction() {
	set_up
	rm "$T/v/OS2/BOOT/ACPI.PSD"
	printf 'x' >"$T/v/IBMCOM/MACS/MMLEM.NIF"
	wd --root "$T/v" reinstall mmlem acpi-psd
	assert_rc 0
	assert_out "Reinstalled mmlem 2.06"
	assert_out "Reinstalled acpi-psd 3.23.16"
	wd --root "$T/v" verify
	assert_rc 0
	[ "$(snapshot "$T/v" var)" = "$(snapshot "$T/setup" var)" ] || fail "the volume is not as set up"
}

t_verify_fix_reinstalls_what_verify_found() {
	set_up
	printf 'garbage' >>"$T/v/$MMLEM"
	rm "$T/v/OS2/DLL/ACPI32.DLL"
	wd --root "$T/v" verify --fix
	assert_rc 0
	assert_out "2 installed files differ from what was installed, in: acpi-psd mmlem"
	assert_out "Reinstalled acpi-psd 3.23.16"
	assert_out "Reinstalled mmlem 2.06"
	assert_out "Fixed: every installed file is as installed again."
	wd --root "$T/v" verify
	assert_rc 0
	[ "$(snapshot "$T/v" var)" = "$(snapshot "$T/setup" var)" ] || fail "the volume is not as set up"
	# nothing to fix: nothing written
	before=$(snapshot "$T/v")
	wd --root "$T/v" verify --fix
	assert_rc 0
	assert_out "Nothing to fix"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "verify --fix with nothing to fix wrote"
	# only the package named
	printf 'garbage' >>"$T/v/$MMLEM"
	wd --root "$T/v" --json verify --fix acpi-psd
	assert_rc 0
	assert_json "d['packages'] == [] and d['damaged_file_count'] == 0"
	wd --root "$T/v" verify
	assert_rc 3
}

t_bad_input_changes_nothing() {
	set_up
	printf 'garbage' >>"$T/v/$MMLEM"
	before=$(snapshot "$T/v")
	wd --root "$T/v" reinstall frob
	assert_rc 1
	assert_err "no package named frob"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "reinstall frob changed the volume"
	wd --root "$T/v" reinstall e1000
	assert_rc 1
	assert_err "e1000 is not installed, so there is nothing to reinstall ('warpdrv install e1000' installs it)"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "reinstall e1000 changed the volume"
	wd --root "$T/v" reinstall
	assert_rc 2
	assert_err "reinstall: name at least one installed package"
	wd --root "$T/v" reinstall mmlem=2.06
	assert_rc 2
	assert_err "name an installed package"
	wd --root "$T/v" reinstall --frob mmlem
	assert_rc 2
	wd --root "$T/v" verify --fix frob
	assert_rc 1
	assert_err "frob is not installed"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "a refused command changed the volume"
	# a version no repository offers any more: said, nothing written
	sqlite3 "$T/v/var/lib/warpdrv/warpdrv.db" "UPDATE package SET version = '2.05' WHERE name = 'mmlem'"
	before=$(snapshot "$T/v")
	wd --root "$T/v" reinstall mmlem
	assert_rc 1
	assert_err "mmlem 2.05 is installed, and no repository offers version 2.05 any more"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "reinstall of a version not on offer changed the volume"
	# a volume with nothing installed
	volume ecs21-e1000
	before=$(snapshot "$T/v")
	wd --root "$T/v" reinstall mmlem
	assert_rc 1
	assert_err "mmlem is not installed"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "reinstall on a fresh volume changed it"
}

# Stopped at every durable step (WARPDRV_CRASH_AT=N), then recovered: the
# volume holds the damaged files or the repaired ones, byte for byte, the
# database lists the same packages, and the originals stay kept.
t_reinstall_survives_a_crash_at_every_step() {
	set_up
	printf 'garbage' >>"$T/v/$MMLEM"
	cp -a "$T/v" "$T/damaged"
	before=$(snapshot "$T/damaged" var)
	kept0=$(kept "$T/damaged")
	wd --root "$T/v" reinstall mmlem
	assert_rc 0
	after=$(snapshot "$T/v" var)
	[ "$before" != "$after" ] || fail "the reinstall changed nothing"
	n=1
	saw_before=0
	saw_after=0
	while :; do
		rm -rf "$T/c"
		cp -a "$T/damaged" "$T/c"
		RC=0
		WARPDRV_CRASH_AT=$n "$WD" --root "$T/c" reinstall mmlem >/dev/null 2>"$T/crash.err" || RC=$?
		[ "$RC" -eq 0 ] && break
		[ "$RC" -eq 99 ] || fail "step $n: exit $RC, not the injected crash: $(cat "$T/crash.err")"
		wd --root "$T/c" recover
		assert_rc 0
		now=$(snapshot "$T/c" var)
		[ "$(installed "$T/c")" = "acpi-psd mmlem" ] || fail "step $n: the packages changed"
		[ "$(kept "$T/c")" = "$kept0" ] || fail "step $n: the kept originals changed"
		[ "$(pending "$T/c")" = 0 ] || fail "step $n: a transaction is left pending"
		if [ "$now" = "$before" ]; then
			saw_before=$((saw_before + 1))
			wd --root "$T/c" verify
			assert_rc 3
		elif [ "$now" = "$after" ]; then
			saw_after=$((saw_after + 1))
			wd --root "$T/c" verify
			assert_rc 0
		else
			fail "step $n: the volume is neither damaged nor repaired"
		fi
		[ -z "$(find "$T/c" -name '*.wd-new')" ] || fail "step $n: a temporary file was left"
		n=$((n + 1))
	done
	[ "$(snapshot "$T/c" var)" = "$after" ] || fail "the run that was not stopped is not 'after'"
	[ $((n - 1)) -ge 5 ] || fail "only $((n - 1)) steps: is fault injection working?"
	[ "$saw_before" -gt 0 ] && [ "$saw_after" -gt 0 ] || fail "saw $saw_before before and $saw_after after"
	echo "reinstall: $((n - 1)) steps, $saw_before recovered to before, $saw_after to after" |
		tee "$T/summary"
	fail_each_step "$T/damaged" "$before" "$after" $((n - 1)) reinstall mmlem | tee -a "$T/summary"
	grep -q "reinstall mmlem (ENOSPC): $((n - 1)) steps failed" "$T/summary"
	power_cut "$T/damaged" "$after" reinstall mmlem | tee -a "$T/summary"
	[ "$(installed "$T/p")" = "acpi-psd mmlem" ] || fail "after the power cut the packages differ"
	[ -z "${CRASH_STEPS:-}" ] || cat "$T/summary" >>"$CRASH_STEPS"
}

run_tests
