#!/usr/bin/env bash
# Edge cases of setup, configure nic|acpi, rollback and history found in
# review: volumes that are a little unusual (a driver loaded twice, a NIC no
# package drives, generation folders removed by hand, a database deleted)
# must still end consistent, or be refused with the volume unchanged.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/setup_lib.sh"

# `warpdrv check` finds no error on the volume.
# A guest whose second adapter was removed in VirtualBox: CONFIG.SYS still
# loads E1000.OS2 twice (E1000$ and E1002$, both with sections). Replacing
# the first line must not leave the second one as an E1000$ without section.
t_one_nic_and_a_driver_loaded_twice() {
	volume two-nics
	subscribe drivers
	check_clean
	listing "00:03.0 8086:100e"
	wd --yes --root "$T/v" --pci "lspci:$T/lspci" configure nic
	assert_rc 0
	check_clean
}

# Two identical adapters: configuring the second one alone must not take
# the first one's line (instance 1) and leave it without its section.
t_slot_picks_the_second_of_two_identical_nics() {
	volume two-nics
	subscribe drivers
	listing "00:03.0 8086:100e" "00:08.0 8086:100e"
	wd --yes --root "$T/v" --pci "lspci:$T/lspci" configure nic --slot 00:08.0
	assert_rc 0
	check_clean
}

# A virtio adapter runs on a third-party driver no package knows; a new
# 82540EM must get a line of its own, not take the virtio adapter's line.
t_unsupported_nic_keeps_its_driver_line() {
	volume ecs21-e1000
	python3 - "$T/v" <<'PY'
import sys
root = sys.argv[1]
p = root + '/CONFIG.SYS'
s = open(p, 'rb').read().replace(b'MACS\\E1000.OS2', b'MACS\\VIRTIONE.OS2')
open(p, 'wb').write(s)
p = root + '/IBMCOM/PROTOCOL.INI'
s = open(p, 'rb').read().replace(b'E1000_nif = E1000.NIF', b'VIRTIONE_nif = VIRTIONE.NIF')
s = s.replace(b'E1000_nif', b'VIRTIONE_nif').replace(b'E1000$', b'VIRTIONE$')
open(p, 'wb').write(s)
PY
	rm "$T/v/IBMCOM/MACS/E1000.OS2" "$T/v/IBMCOM/MACS/E1000.NIF"
	echo "virtio driver" >"$T/v/IBMCOM/MACS/VIRTIONE.OS2"
	listing "00:03.0 1af4:1000" "00:08.0 8086:100e"
	check_clean
	wd --root "$T/v" --pci "lspci:$T/lspci" setup --yes
	assert_rc 0
	assert_out "no package drives the VirtualBox virtio at 0000:00:03.0"
	grep -aq 'DEVICE=C:\\IBMCOM\\MACS\\VIRTIONE.OS2' "$T/v/CONFIG.SYS" ||
		fail "the virtio adapter's driver line was taken over"
	grep -aq '^\[VIRTIONE_nif\]' "$T/v/IBMCOM/PROTOCOL.INI" ||
		fail "the virtio adapter's PROTOCOL.INI section was taken over"
	grep -aq 'DEVICE=C:\\IBMCOM\\MACS\\E1000.OS2' "$T/v/CONFIG.SYS" || fail "no E1000 line"
	check_clean
}

# The copies of generation 1 removed by hand: rollback cannot put the files
# back, so it must say so rather than report "nothing to do".
t_rollback_without_the_generation_copies() {
	volume ecs21-e1000
	subscribe drivers
	wd --yes --root "$T/v" --pci "lspci:$FIX/pci/vbox-82540em.lspci-n" configure nic
	assert_rc 0
	rm -rf "$T/v/var/lib/warpdrv/generations/1"
	before=$(snapshot "$T/v")
	wd --yes --root "$T/v" rollback 1
	assert_rc 1
	assert_err "generations/1"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the volume changed"
}

# The database deleted (to start afresh, say) while generations/1 holds the
# only copy of the files as they were before warpdrv: a new change must not
# write its copies over it.
t_new_generation_does_not_overwrite_an_old_folder() {
	volume ecs21-e1000
	subscribe drivers
	pci="lspci:$FIX/pci/vbox-82540em.lspci-n"
	wd --yes --root "$T/v" --pci "$pci" configure nic
	assert_rc 0
	cp "$T/orig/CONFIG.SYS" "$T/pristine"
	assert_same_file "$T/v/var/lib/warpdrv/generations/1/CONFIG.SYS" "$T/pristine"
	rm "$T/v/var/lib/warpdrv/warpdrv.db"
	subscribe drivers
	wd --yes --root "$T/v" --pci "$pci" configure nic --driver e1000
	assert_rc 0
	assert_same_file "$T/v/var/lib/warpdrv/generations/1/CONFIG.SYS" "$T/pristine"
}

# setup stopped right after CONFIG.SYS was renamed into place (PROTOCOL.INI
# not yet), and then the generation folder removed by hand: the next run
# must not leave the new CONFIG.SYS beside the old PROTOCOL.INI for good
# (every later command failing on the missing copy).
t_crash_then_generation_folder_removed() {
	volume ecs21-e1000
	subscribe drivers
	pci="lspci:$FIX/pci/vbox-82540em.lspci-n"
	n=1
	while :; do
		rm -rf "$T/c"
		cp -a "$T/v" "$T/c"
		RC=0
		WARPDRV_CRASH_AT=$n "$WD" --root "$T/c" --pci "$pci" setup --yes >/dev/null 2>&1 || RC=$?
		[ "$RC" -eq 99 ] || fail "no step left the new CONFIG.SYS beside the old PROTOCOL.INI"
		if ! cmp -s "$T/c/CONFIG.SYS" "$T/v/CONFIG.SYS" &&
			cmp -s "$T/c/IBMCOM/PROTOCOL.INI" "$T/v/IBMCOM/PROTOCOL.INI"; then
			break
		fi
		n=$((n + 1))
	done
	rm -rf "$T/c/var/lib/warpdrv/generations"
	# check tells the half change and names recover, which undoes it
	wd --root "$T/c" check
	assert_rc 1
	assert_out "[txn-pending]"
	wd --root "$T/c" recover
	assert_rc 0
	# its kept copies gone with the folder, recovery finishes the change
	assert_out "Finished the interrupted 'setup' (mmlem)."
	wd --root "$T/c" check
	[ "$RC" -eq 0 ] || fail "after recovery the volume is half changed: $OUT"
}

# PROTOCOL.INI lacks the section of the E1000 line (the protocols are bound
# to E1000_nif, which is not there). setup must either refuse, or bind the
# protocols to the new adapter: "Done" with TCP/IP bound to nothing is wrong.
t_missing_mac_section() {
	volume ecs21-e1000
	subscribe drivers
	python3 - "$T/v/IBMCOM/PROTOCOL.INI" <<'PY'
import sys
p = sys.argv[1]
s = open(p, 'rb').read().replace(b'\r\n[E1000_nif]\r\n\r\n   DriverName = E1000$\r\n', b'')
open(p, 'wb').write(s)
PY
	rm -rf "$T/orig"
	cp -a "$T/v" "$T/orig"
	before=$(snapshot "$T/v")
	wd --root "$T/v" --pci "lspci:$FIX/pci/vbox-82540em.lspci-n" setup --yes
	if [ "$RC" -eq 0 ]; then
		wd --root "$T/v" --json check
		assert_json "[f for f in d['findings'] if f['code'] == 'binding-unknown'] == []"
		grep -aq 'Bindings = MMLEM_nif' "$T/v/IBMCOM/PROTOCOL.INI" ||
			fail "no protocol is bound to the new adapter"
	else
		assert_rc 1
		[ "$(snapshot "$T/v")" = "$before" ] || fail "refused, but the volume changed"
	fi
}

# docs/setup.md: "A section of the new name that exists for no adapter stops
# the run (exit 1) rather than be overwritten." Here a new PCnet adapter
# meets a stale [PCNTND_nif] that no DEVICE= line loads.
t_stale_section_of_the_new_name_stops_the_run() {
	volume ecs21-e1000
	printf '\r\n[PCNTND_nif]\r\n\r\n   DriverName = PCNTND$\r\n   FOO = 1\r\n' \
		>>"$T/v/IBMCOM/PROTOCOL.INI"
	before=$(snapshot "$T/v")
	listing "00:03.0 8086:100e" "00:08.0 1022:2000"
	wd --yes --root "$T/v" --pci "lspci:$T/lspci" configure nic
	assert_rc 1
	assert_err "[PCNTND_nif]"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the stale section was overwritten"
}

# ArcaOS on D: has ACPI configured, its files in place: configure acpi has
# nothing to do, as configure nic leaves a configured driver whose file is
# there. It must not write the package's files over the OS's.
t_acpi_already_configured_changes_nothing() {
	volume arcaos-d-pcnet
	subscribe acpi
	before=$(snapshot "$T/v")
	wd --yes --root "$T/v" configure acpi
	assert_rc 0
	assert_out "Nothing to do"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the OS's ACPI files were replaced"
}

# A change that only installs a package (the driver configured, its file
# missing) records no generation: the message must not say "Done0" nor
# promise that rollback undoes it.
t_done_message_without_a_generation() {
	volume ecs21-e1000
	subscribe drivers
	python3 - "$T/v" <<'PY'
import sys
root = sys.argv[1]
for f in ('/CONFIG.SYS', '/IBMCOM/PROTOCOL.INI'):
    s = open(root + f, 'rb').read().replace(b'E1000', b'MMLEM')
    open(root + f, 'wb').write(s)
PY
	wd --yes --root "$T/v" --pci "lspci:$FIX/pci/vbox-82540em.lspci-n" configure nic
	assert_rc 0
	assert_out "Packages to install: mmlem"
	assert_no_out "Done0"
	assert_no_out "'warpdrv rollback' undoes it"
	wd --yes --root "$T/v" rollback
	assert_rc 1
}

# history --json has the same keys with and without a database.
t_history_json_keys_without_a_database() {
	volume ecs21-e1000
	wd --root "$T/v" --json history
	assert_rc 0
	assert_json "d == {'format': 1, 'generations': [], 'history': []}"
}

# After setup, CONFIG.SYS loads MMLEM.OS2: removing the mmlem package must
# not leave a DEVICE= line loading a file that is gone.
t_remove_a_driver_config_sys_loads() {
	volume ecs21-e1000
	subscribe drivers
	wd --yes --root "$T/v" --pci "lspci:$FIX/pci/vbox-82540em.lspci-n" configure nic
	assert_rc 0
	before=$(snapshot "$T/v")
	wd --yes --root "$T/v" remove mmlem
	if [ "$RC" -eq 0 ]; then
		! grep -aq 'MACS\\MMLEM.OS2' "$T/v/CONFIG.SYS" ||
			fail "CONFIG.SYS still loads MMLEM.OS2, which remove deleted"
	else
		[ "$(snapshot "$T/v")" = "$before" ] || fail "refused, but the volume changed"
	fi
}

run_tests
