#!/usr/bin/env bash
# Undoing one part of a setup: configure acpi --off (the PSD's statements
# out, the lines they displaced back, then remove acpi-psd works),
# configure nic --off (back to the driver before), and rollback --packages
# (the files as before a generation and the packages it installed removed,
# one transaction). CONFIG.SYS and PROTOCOL.INI are compared byte for byte
# (CR LF kept); each bad input leaves the volume's bytes as they were; a
# crash at any step leaves the volume before or after.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pkg_lib.sh"
. "$(dirname "$0")/setup_lib.sh"
. "$(dirname "$0")/steps_lib.sh"

# The eComStation fixture with the statements the ACPI PSD displaces
# (OS2APIC.PSD with a switch, APM.SYS, VAPM.SYS) added, CR LF as the file
# has it, and a subscription: $T/v, and $T/orig the same.
acpi_volume() {
	volume ecs21-e1000
	python3 - "$T/v/CONFIG.SYS" <<'PY'
import sys
p = sys.argv[1]
b = open(p, 'rb').read()
b = b.replace(b'BASEDEV=IBMKBD.SYS\r\n', b'PSD=OS2APIC.PSD /APIC\r\nBASEDEV=IBMKBD.SYS\r\n', 1)
b = b.replace(b'DEVICE=C:\\OS2\\BOOT\\MOUSE.SYS\r\n',
              b'DEVICE=C:\\OS2\\BOOT\\MOUSE.SYS\r\nDEVICE=C:\\OS2\\BOOT\\APM.SYS\r\nDEVICE=C:\\OS2\\MDOS\\VAPM.SYS\r\n', 1)
open(p, 'wb').write(b)
PY
	grep -q 'OS2APIC.PSD /APIC' "$T/v/CONFIG.SYS" || fail "the fixture was not edited"
	mkdir -p "$T/v/OS2/BOOT" "$T/v/OS2/MDOS"
	for f in OS2/BOOT/OS2APIC.PSD OS2/BOOT/APM.SYS OS2/MDOS/VAPM.SYS; do
		printf 'the %s the OS shipped\r\n' "$f" >"$T/v/$f"
	done
	subscribe drivers,acpi
	listing "00:03.0 8086:100e"
}

t_acpi_off_puts_config_sys_back_byte_for_byte_then_remove_works() {
	acpi_volume
	wd --yes --root "$T/v" configure acpi
	assert_rc 0
	! grep -q 'OS2APIC.PSD' "$T/v/CONFIG.SYS" || fail "configure acpi left OS2APIC.PSD"
	grep -q 'PSD=ACPI.PSD' "$T/v/CONFIG.SYS" || fail "configure acpi did not add its PSD"
	# dry run: the plan as a diff, nothing written
	before=$(snapshot "$T/v")
	wd --root "$T/v" --dry-run configure acpi --off
	assert_rc 0
	assert_out "the 3 lines it displaced back (from before generation 1)"
	assert_out "-PSD=ACPI.PSD"
	assert_out "+PSD=OS2APIC.PSD /APIC"
	assert_out "Dry run: nothing was written."
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the dry run changed the volume"
	wd --yes --root "$T/v" configure acpi --off
	assert_rc 0
	assert_out "Done: generation 2"
	assert_same_file "$T/orig/CONFIG.SYS" "$T/v/CONFIG.SYS"
	assert_same_file "$T/orig/IBMCOM/PROTOCOL.INI" "$T/v/IBMCOM/PROTOCOL.INI"
	all_crlf CONFIG.SYS
	check_clean
	wd --yes --root "$T/v" remove acpi-psd
	assert_rc 0
	assert_out "Removed acpi-psd 3.23.16."
	[ ! -e "$T/v/OS2/BOOT/ACPI.PSD" ] || fail "ACPI.PSD stayed"
	[ "$(installed "$T/v")" = "" ] || fail "a package stayed installed"
	[ "$(snapshot "$T/v" var)" = "$(snapshot "$T/orig" var)" ] || fail "the volume is not as before the ACPI change"
	# the generation is one of the list, and rollback undoes it like any other
	wd --root "$T/v" --json history
	assert_json "[g['command'] for g in d['generations']] == ['configure acpi', 'configure acpi --off']"
}

# A guest that loaded the PSD before warpdrv: PSD=ACPI.PSD /VW and
# BASEDEV=APM.ADD of its own, the PSD's files there. configure acpi adopts
# them (the package keeps the guest's ACPI.PSD and APM.ADD) and adds only the
# daemon's line; --off takes out that line alone: CONFIG.SYS byte for byte as
# before. A second --off has nothing to turn off (the guest's lines were there
# before warpdrv), and remove puts the guest's own files back.
own_psd_volume() {
	volume ecs21-e1000
	python3 - "$T/v/CONFIG.SYS" <<'PY'
import sys
p = sys.argv[1]
b = open(p, 'rb').read()
b = b.replace(b'BASEDEV=IBMKBD.SYS\r\n', b'PSD=ACPI.PSD /VW\r\nBASEDEV=IBMKBD.SYS\r\n', 1)
b = b.replace(b'BASEDEV=OS2LVM.DMD\r\n', b'BASEDEV=OS2LVM.DMD\r\nBASEDEV=APM.ADD\r\n', 1)
open(p, 'wb').write(b)
PY
	grep -q 'PSD=ACPI.PSD /VW' "$T/v/CONFIG.SYS" || fail "the fixture was not edited"
	for f in OS2/BOOT/ACPI.PSD OS2/BOOT/APM.ADD; do
		printf 'the guest'"'"'s own %s\r\n' "$f" >"$T/v/$f"
	done
	subscribe "${1:-drivers,acpi}"
	listing "00:03.0 8086:100e"
}

t_acpi_off_keeps_the_guests_own_psd_lines() {
	own_psd_volume
	wd --yes --root "$T/v" configure acpi
	assert_rc 0
	expect_changes CONFIG.SYS '+RUN=C:\OS2\ACPIDAEMON.EXE'
	wd --root "$T/v" --dry-run configure acpi --off
	assert_rc 0
	assert_out "-RUN=C:\OS2\ACPIDAEMON.EXE"
	assert_no_out "-PSD=ACPI.PSD"
	assert_no_out "-BASEDEV=APM.ADD"
	wd --yes --root "$T/v" configure acpi --off
	assert_rc 0
	assert_out "Done: generation 2"
	assert_same_file "$T/orig/CONFIG.SYS" "$T/v/CONFIG.SYS"
	assert_same_file "$T/orig/IBMCOM/PROTOCOL.INI" "$T/v/IBMCOM/PROTOCOL.INI"
	all_crlf CONFIG.SYS
	check_clean
	# the guest's lines were there before warpdrv: nothing more to turn off
	before=$(snapshot "$T/v")
	wd --yes --root "$T/v" configure acpi --off
	assert_rc 1
	assert_err "configure acpi --off: the statements of acpi-psd 3.23.16 that CONFIG.SYS holds were there before warpdrv's first change"
	assert_err "nothing is turned off ('warpdrv remove acpi-psd' removes the package and puts back the files it replaced)"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the refused --off changed the volume"
	wd --yes --root "$T/v" remove acpi-psd
	assert_rc 0
	assert_same_file "$T/orig/OS2/BOOT/ACPI.PSD" "$T/v/OS2/BOOT/ACPI.PSD"
	assert_same_file "$T/orig/OS2/BOOT/APM.ADD" "$T/v/OS2/BOOT/APM.ADD"
	[ "$(snapshot "$T/v" var)" = "$(snapshot "$T/orig" var)" ] || fail "the volume is not as before the ACPI change"
}

# The same guest through setup (NIC and ACPI in one generation), with and
# without the acpi entitlement: --off takes out the daemon's line only, the
# NIC's change stays; without the entitlement setup leaves ACPI alone.
t_acpi_off_after_setup_keeps_the_guests_own_psd_lines() {
	own_psd_volume
	wd --yes --root "$T/v" --pci "lspci:$T/lspci" setup
	assert_rc 0
	expect_changes CONFIG.SYS '+RUN=C:\OS2\ACPIDAEMON.EXE' \
		'-DEVICE=C:\IBMCOM\MACS\E1000.OS2' '+DEVICE=C:\IBMCOM\MACS\MMLEM.OS2'
	wd --yes --root "$T/v" configure acpi --off
	assert_rc 0
	expect_changes CONFIG.SYS '-DEVICE=C:\IBMCOM\MACS\E1000.OS2' '+DEVICE=C:\IBMCOM\MACS\MMLEM.OS2'
	check_clean
	wd --yes --root "$T/v" --pci "lspci:$T/lspci" configure nic --off
	assert_rc 0
	assert_same_file "$T/orig/CONFIG.SYS" "$T/v/CONFIG.SYS"
	assert_same_file "$T/orig/IBMCOM/PROTOCOL.INI" "$T/v/IBMCOM/PROTOCOL.INI"
	# without acpi in the subscription setup leaves the guest's PSD alone,
	# and configure acpi --off has no package to turn off
	own_psd_volume drivers
	wd --yes --root "$T/v" --pci "lspci:$T/lspci" setup
	assert_rc 0
	expect_changes CONFIG.SYS '-DEVICE=C:\IBMCOM\MACS\E1000.OS2' '+DEVICE=C:\IBMCOM\MACS\MMLEM.OS2'
	before=$(snapshot "$T/v")
	wd --yes --root "$T/v" configure acpi --off
	assert_rc 1
	assert_err "configure acpi --off: no ACPI PSD package is installed"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the refused --off changed the volume"
}

# After a setup (NIC and ACPI in one generation), --off takes only the ACPI
# part back: CONFIG.SYS as before but for the NIC's line; PROTOCOL.INI stays.
t_acpi_off_after_setup_leaves_the_nic_change() {
	acpi_volume
	wd --yes --root "$T/v" --pci "lspci:$T/lspci" setup
	assert_rc 0
	cp "$T/v/IBMCOM/PROTOCOL.INI" "$T/pi.setup"
	wd --yes --root "$T/v" configure acpi --off
	assert_rc 0
	expect_changes CONFIG.SYS '-DEVICE=C:\IBMCOM\MACS\E1000.OS2' '+DEVICE=C:\IBMCOM\MACS\MMLEM.OS2'
	python3 - "$T/orig/CONFIG.SYS" "$T/v/CONFIG.SYS" <<'PY' || fail "CONFIG.SYS differs from before the ACPI change in more than the NIC line"
import sys
a = open(sys.argv[1], 'rb').read().replace(b'\\E1000.OS2\r\n', b'\\MMLEM.OS2\r\n')
sys.exit(0 if a == open(sys.argv[2], 'rb').read() else 1)
PY
	assert_same_file "$T/pi.setup" "$T/v/IBMCOM/PROTOCOL.INI"
	wd --yes --root "$T/v" remove acpi-psd
	assert_rc 0
	# MMLEM is still loaded: its removal is refused, naming the NIC commands
	before=$(snapshot "$T/v")
	wd --yes --root "$T/v" remove mmlem
	assert_rc 1
	assert_err "CONFIG.SYS line 21 loads MMLEM.OS2, which removing mmlem deletes"
	assert_err "warpdrv configure nic --driver NAME, or warpdrv configure nic --off"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the refused remove changed the volume"
}

t_nic_off_goes_back_to_the_driver_before() {
	acpi_volume
	wd --yes --root "$T/v" --pci "lspci:$T/lspci" configure nic
	assert_rc 0
	grep -q 'MMLEM.OS2' "$T/v/CONFIG.SYS" || fail "MMLEM was not configured"
	wd --yes --root "$T/v" --pci "lspci:$T/lspci" configure nic --off
	assert_rc 0
	assert_out "e1000"
	assert_out "-DEVICE=C:\IBMCOM\MACS\MMLEM.OS2"
	assert_out "+DEVICE=C:\IBMCOM\MACS\E1000.OS2"
	assert_same_file "$T/orig/CONFIG.SYS" "$T/v/CONFIG.SYS"
	assert_same_file "$T/orig/IBMCOM/PROTOCOL.INI" "$T/v/IBMCOM/PROTOCOL.INI"
	check_clean
	wd --yes --root "$T/v" remove mmlem
	assert_rc 0
	[ ! -e "$T/v/IBMCOM/MACS/MMLEM.OS2" ] || fail "MMLEM.OS2 stayed"
}

# Two adapters, one of which only the subscription's driver runs (an 82545EM
# beside an Am79C973), replacing the two 3Com adapters: setup with the
# subscription configures MMLEM and PCNTND, every binding in its place;
# configure nic --off refuses as it does with one such adapter (exit 4,
# naming the adapter that keeps the subscription driver), volume unchanged.
# With an 82540EM in its place --off goes back to E1000 and keeps PCNTND.
# Without a subscription setup leaves the 82545EM as it is, and --off has
# nothing to turn off.
t_nic_off_two_adapters_one_only_the_subscriptions() {
	volume 3com-vendor-names
	subscribe drivers
	listing "00:03.0 8086:100f" "00:08.0 1022:2000 40"
	wd --yes --root "$T/v" --pci "lspci:$T/lspci" setup
	assert_rc 0
	expect_changes CONFIG.SYS '-DEVICE=C:\IBMCOM\MACS\EL90X.OS2' '-DEVICE=C:\IBMCOM\MACS\EL90X.OS2' \
		'+DEVICE=C:\IBMCOM\MACS\MMLEM.OS2' '+DEVICE=C:\IBMCOM\MACS\PCNTND.OS2'
	grep -q 'Bindings = "MMLEM_nif","PCNTND_nif"' "$T/v/IBMCOM/PROTOCOL.INI" || fail "the bindings moved"
	all_crlf CONFIG.SYS
	all_crlf IBMCOM/PROTOCOL.INI
	check_clean
	local after
	after=$(snapshot "$T/v")
	wd --yes --root "$T/v" --pci "lspci:$T/lspci" configure nic --off
	assert_rc 4
	assert_err "configure nic --off: the 82545EM at 0000:00:03.0 would keep the subscription's driver: only mmlem (needs a subscription with drivers) drives it; nothing was changed"
	wd --root "$T/v" --pci "lspci:$T/lspci" --json configure nic --off --dry-run
	assert_rc 4
	assert_json "d['error']['exit_code'] == 4 and '82545EM at 0000:00:03.0' in d['error']['message']"
	# the same refusal as with one such adapter
	listing "00:03.0 8086:100f"
	wd --yes --root "$T/v" --pci "lspci:$T/lspci" configure nic --off
	assert_rc 4
	assert_err "the 82545EM at 0000:00:03.0 would keep the subscription's driver"
	[ "$(snapshot "$T/v")" = "$after" ] || fail "a refused --off changed the volume"
	listing "00:03.0 8086:100f" "00:08.0 1022:2000 40"
	second_run_and_rollback "$T/lspci" CONFIG.SYS IBMCOM/PROTOCOL.INI

	# an 82540EM beside the PCnet: --off goes back to E1000, PCNTND stays
	volume 3com-vendor-names
	subscribe drivers
	listing "00:03.0 8086:100e" "00:08.0 1022:2000 40"
	wd --yes --root "$T/v" --pci "lspci:$T/lspci" setup
	assert_rc 0
	cp "$T/v/CONFIG.SYS" "$T/cs.setup"
	wd --yes --root "$T/v" --pci "lspci:$T/lspci" configure nic --off
	assert_rc 0
	assert_out "-DEVICE=C:\IBMCOM\MACS\MMLEM.OS2"
	assert_out "+DEVICE=C:\IBMCOM\MACS\E1000.OS2"
	python3 - "$T/cs.setup" "$T/v/CONFIG.SYS" <<'PY' || fail "CONFIG.SYS changed in more than the MMLEM line"
import sys
a = open(sys.argv[1], 'rb').read().replace(b'\\MMLEM.OS2\r\n', b'\\E1000.OS2\r\n')
sys.exit(0 if a == open(sys.argv[2], 'rb').read() else 1)
PY
	grep -q 'Bindings = "E1000_nif","PCNTND_nif"' "$T/v/IBMCOM/PROTOCOL.INI" || fail "the bindings moved"
	check_clean

	# without a subscription: the 82545EM is left as it is, nothing to turn off
	volume warp452-pcnet
	listing "00:03.0 8086:100f" "00:08.0 1022:2000 40"
	wd --yes --root "$T/v" --pci "lspci:$T/lspci" setup
	assert_rc 0
	assert_out "no driver the subscription allows for the 82545EM at 0000:00:03.0"
	assert_out "left as it is"
	after=$(snapshot "$T/v")
	wd --yes --root "$T/v" --pci "lspci:$T/lspci" configure nic --off
	assert_rc 1
	assert_err "which needs no subscription"
	assert_err "nothing to turn off"
	[ "$(snapshot "$T/v")" = "$after" ] || fail "a refused --off changed the volume"
}

# A NIC with no generation before it goes to the free default.
t_nic_off_without_a_driver_before_takes_the_free_default() {
	volume ecs21-e1000
	subscribe drivers
	listing "00:03.0 8086:100e"
	# MMLEM configured by hand (no generation tells what was there before)
	wd --root "$T/v" install mmlem
	assert_rc 0
	sed -i 's/\\E1000\.OS2\r$/\\MMLEM.OS2\r/' "$T/v/CONFIG.SYS"
	sed -i 's/E1000_nif/MMLEM_nif/; s/E1000\.NIF/MMLEM.NIF/; s/E1000\$/MMLEM$/' "$T/v/IBMCOM/PROTOCOL.INI"
	grep -q 'MMLEM.OS2' "$T/v/CONFIG.SYS" || fail "the hand edit failed"
	wd --yes --root "$T/v" --pci "lspci:$T/lspci" configure nic --off
	assert_rc 0
	assert_out "e1000"
	grep -q '\\E1000.OS2' "$T/v/CONFIG.SYS" || fail "the free default E1000 is not configured"
	# now E1000 needs no subscription and nothing was before it: nothing to turn off
	before=$(snapshot "$T/v")
	wd --yes --root "$T/v" --pci "lspci:$T/lspci" configure nic --off
	assert_rc 1
	assert_err "needs no subscription"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the refused --off changed the volume"
}

t_rollback_packages_takes_a_whole_setup_back() {
	volume ecs21-e1000
	# an MMLEM.OS2 of the OS's own: the install keeps it, the undo puts it back
	printf 'the MMLEM.OS2 the OS shipped\r\n' >"$T/v/IBMCOM/MACS/MMLEM.OS2"
	cp -a "$T/v" "$T/orig0"
	subscribe drivers,acpi
	listing "00:03.0 8086:100e"
	wd --yes --root "$T/v" --pci "lspci:$T/lspci" setup
	assert_rc 0
	[ "$(installed "$T/v")" = "acpi-psd mmlem" ] || fail "setup did not install both"
	before=$(snapshot "$T/v")
	wd --root "$T/v" --dry-run rollback --packages 1
	assert_rc 0
	assert_out "Remove acpi-psd 3.23.16, mmlem 2.06:"
	assert_out 'delete; put back the original  \IBMCOM\MACS\MMLEM.OS2'
	assert_out "+DEVICE=C:\IBMCOM\MACS\E1000.OS2"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the dry run changed the volume"
	wd --yes --root "$T/v" rollback --packages 1
	assert_rc 0
	assert_out "Removed acpi-psd 3.23.16."
	assert_out "Removed mmlem 2.06."
	assert_out "Done: generation 2"
	[ "$(installed "$T/v")" = "" ] || fail "a package stayed installed"
	[ "$(snapshot "$T/v" var)" = "$(snapshot "$T/orig0" var)" ] || fail "the volume is not as before the setup"
	all_crlf CONFIG.SYS
	wd --root "$T/v" verify
	assert_rc 0
	wd --root "$T/v" --json history
	assert_json "[(h['action'], h['package']) for h in d['history']][-2:] == [('remove', 'acpi-psd'), ('remove', 'mmlem')]"
	assert_json "d['generations'][-1]['command'] == 'rollback --packages 1'"
	# nothing left to take back
	before=$(snapshot "$T/v")
	wd --yes --root "$T/v" rollback --packages 1
	assert_rc 0
	assert_out "Nothing to do"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "a rollback with nothing to do wrote"
	# a plain rollback of the rollback brings the configuration back, not the packages
	wd --yes --root "$T/v" rollback
	assert_rc 0
	grep -q 'MMLEM.OS2' "$T/v/CONFIG.SYS" || fail "rollback did not bring the setup's CONFIG.SYS back"
}

t_bad_input_changes_nothing() {
	acpi_volume
	before=$(snapshot "$T/v")
	wd --yes --root "$T/v" configure acpi --off
	assert_rc 1
	assert_err "configure acpi --off: no ACPI PSD package is installed"
	wd --yes --root "$T/v" --pci "lspci:$T/lspci" configure nic --off
	assert_rc 1
	assert_err "CONFIG.SYS loads E1000.OS2 (package e1000), which needs no subscription"
	assert_err "nothing to turn off"
	wd --yes --root "$T/v" rollback --packages
	assert_rc 1
	assert_err "nothing to roll back: no configuration change was made on this volume yet"
	wd --yes --root "$T/v" configure acpi --off extra
	assert_rc 2
	assert_err "unexpected argument 'extra'"
	wd --yes --root "$T/v" --pci "lspci:$T/lspci" configure nic --off --driver e1000
	assert_rc 2
	assert_err "give one of them"
	wd --yes --root "$T/v" rollback --packages abc
	assert_rc 2
	assert_err "expected a generation number"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "a refused command changed the volume"
	wd --yes --root "$T/v" --pci "lspci:$T/lspci" setup
	assert_rc 0
	before=$(snapshot "$T/v")
	# no terminal and no --yes: refused, nothing written
	wd --root "$T/v" configure acpi --off
	assert_rc 2
	assert_err "configure acpi --off changes the volume, and there is no terminal to ask on"
	wd --root "$T/v" --pci "lspci:$T/lspci" configure nic --off
	assert_rc 2
	assert_err "no terminal"
	wd --root "$T/v" rollback --packages 1
	assert_rc 2
	assert_err "rollback --packages changes the volume, and there is no terminal to ask on"
	wd --yes --root "$T/v" rollback --packages 7
	assert_rc 1
	assert_err "rollback 7: no such generation"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "a refused command changed the volume"
	# turned off once: a second time there is nothing to turn off
	wd --yes --root "$T/v" configure acpi --off
	assert_rc 0
	before=$(snapshot "$T/v")
	wd --yes --root "$T/v" configure acpi --off
	assert_rc 1
	assert_err "has none of the statements of acpi-psd 3.23.16"
	assert_err "nothing to turn off"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the second --off changed the volume"
}

# Stops `warpdrv ARGS` at step 1, 2, ... on a copy of FROM until a run
# completes; after each, recovery, then the volume (all of it but warpdrv's
# state) must be BEFORE with PB installed or AFTER with PA. Prints the count.
crash_each_step() { # FROM BEFORE PB AFTER PA ARGS...
	local from=$1 before=$2 pb=$3 after=$4 pa=$5
	shift 5
	local n=1 sb=0 sa=0 now pkgs
	while :; do
		rm -rf "$T/c"
		cp -a "$from" "$T/c"
		RC=0
		WARPDRV_CRASH_AT=$n "$WD" --yes --root "$T/c" "$@" >/dev/null 2>"$T/crash.err" || RC=$?
		[ "$RC" -eq 0 ] && break
		[ "$RC" -eq 99 ] || fail "step $n: exit $RC, not the injected crash: $(cat "$T/crash.err")"
		wd --root "$T/c" recover
		assert_rc 0
		now=$(snapshot "$T/c" var)
		pkgs=$(installed "$T/c")
		if [ "$now" = "$before" ] && [ "$pkgs" = "$pb" ]; then
			sb=$((sb + 1))
		elif [ "$now" = "$after" ] && [ "$pkgs" = "$pa" ]; then
			sa=$((sa + 1))
		else
			fail "step $n: the volume is neither before nor after (packages '$pkgs')"
		fi
		wd --root "$T/c" verify
		assert_rc 0
		n=$((n + 1))
	done
	[ "$(snapshot "$T/c" var)" = "$after" ] || fail "the run that was not stopped is not 'after'"
	[ $((n - 1)) -ge 5 ] || fail "only $((n - 1)) steps: is fault injection working?"
	# (the commit is the last durable step of a change of the boot files:
	# a stop before it is undone)
	[ "$sb" -gt 0 ] || fail "no stop recovered to before"
	echo "$* : $((n - 1)) steps, $sb recovered to before, $sa to after"
}

t_acpi_off_and_rollback_packages_survive_a_crash_at_every_step() {
	acpi_volume
	printf 'the MMLEM.OS2 the OS shipped\r\n' >"$T/v/IBMCOM/MACS/MMLEM.OS2"
	pre=$(snapshot "$T/v" var)
	wd --yes --root "$T/v" --pci "lspci:$T/lspci" setup
	assert_rc 0
	cp -a "$T/v" "$T/s0"
	s0=$(snapshot "$T/s0" var)
	cp -a "$T/s0" "$T/s1"
	wd --yes --root "$T/s1" configure acpi --off
	assert_rc 0
	s1=$(snapshot "$T/s1" var)
	crash_each_step "$T/s0" "$s0" "acpi-psd mmlem" "$s1" "acpi-psd mmlem" configure acpi --off |
		tee "$T/summary"
	cp -a "$T/s0" "$T/s2"
	wd --yes --root "$T/s2" rollback --packages 1
	assert_rc 0
	s2=$(snapshot "$T/s2" var)
	[ "$s2" = "$pre" ] || fail "rollback --packages is not the volume before setup"
	crash_each_step "$T/s0" "$s0" "acpi-psd mmlem" "$s2" "" rollback --packages 1 | tee -a "$T/summary"
	grep -q "configure acpi --off : [0-9]* steps" "$T/summary"
	grep -q "rollback --packages 1 : [0-9]* steps" "$T/summary"
	steps=$(sed -n 's/^configure acpi --off : \([0-9]*\) steps.*/\1/p' "$T/summary")
	fail_each_step "$T/s0" "$s0" "$s1" "$steps" configure acpi --off | tee -a "$T/summary"
	steps=$(sed -n 's/^rollback --packages 1 : \([0-9]*\) steps.*/\1/p' "$T/summary")
	fail_each_step "$T/s0" "$s0" "$s2" "$steps" rollback --packages 1 | tee -a "$T/summary"
	power_cut "$T/s0" "$s1" configure acpi --off | tee -a "$T/summary"
	power_cut "$T/s0" "$s2" rollback --packages 1 | tee -a "$T/summary"
	[ "$(installed "$T/p")" = "" ] || fail "after the power cut a package is listed"
	[ -z "${CRASH_STEPS:-}" ] || cat "$T/summary" >>"$CRASH_STEPS"
}

run_tests
