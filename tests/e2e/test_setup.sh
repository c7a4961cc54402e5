#!/usr/bin/env bash
# warpdrv setup, configure nic|acpi, history and rollback: fixture volumes go
# in, the built program runs, CONFIG.SYS and PROTOCOL.INI are checked line by
# line (every other line byte for byte), and `warpdrv check` finds no error.
. "$(dirname "$0")/lib.sh"
. "$FIX/pci/sysfs.sh"
. "$(dirname "$0")/setup_lib.sh"
P="$FIX/pci"

t_e1000_to_mmlem_with_a_subscription() {
	volume ecs21-e1000
	subscribe drivers
	wd --root "$T/v" --pci "lspci:$FIX/pci/vbox-82540em.lspci-n" setup --yes
	assert_rc 0
	assert_out "MMLEM.OS2"
	expect_changes CONFIG.SYS '-DEVICE=C:\IBMCOM\MACS\E1000.OS2' '+DEVICE=C:\IBMCOM\MACS\MMLEM.OS2'
	# NetBEUI and TCP/IP were both bound to the E1000: both now to MMLEM.
	expect_changes IBMCOM/PROTOCOL.INI \
		'-   E1000_nif = E1000.NIF' '+   MMLEM_nif = MMLEM.NIF' \
		'-   Bindings = E1000_nif' '-   Bindings = E1000_nif' \
		'+   Bindings = MMLEM_nif' '+   Bindings = MMLEM_nif' \
		'-[E1000_nif]' '+[MMLEM_nif]' '-   DriverName = E1000$' '+   DriverName = MMLEM$'
	all_crlf CONFIG.SYS
	all_crlf IBMCOM/PROTOCOL.INI
	grep -q "MMLEM.OS2 of the mmlem package" "$T/v/IBMCOM/MACS/MMLEM.OS2" || fail "MMLEM.OS2 not installed"
	[ -f "$T/v/IBMCOM/MACS/MMLEM.NIF" ] || fail "MMLEM.NIF not installed"
	check_clean
	wd --root "$T/v" --json list --installed
	assert_json "[p['name'] for p in d['packages']] == ['mmlem']"
}

t_e1000_kept_without_a_subscription() {
	volume ecs21-e1000
	before=$(snapshot "$T/v")
	wd --root "$T/v" --pci "lspci:$FIX/pci/vbox-82540em.lspci-n" setup --yes
	assert_rc 0
	assert_out "MMLEM needs a subscription with drivers; using E1000"
	assert_out "A subscription would add MMLEM"
	assert_out "Nothing to do"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the volume changed"
}

t_arcaos_on_d_lowercase_pcnet_to_82545em() {
	volume arcaos-d-pcnet
	subscribe drivers
	make_sysfs "$T/sys" "${VBOX_BASE[@]}" "$(vbox_nic 0000:00:03.0 82545EM)"
	wd --yes --root "$T/v" --pci "sysfs:$T/sys" configure nic
	assert_rc 0
	expect_changes CONFIG.SYS '-DEVICE=D:\IBMCOM\MACS\PCNTND.OS2' '+DEVICE=D:\IBMCOM\MACS\MMLEM.OS2'
	grep -q "MMLEM.OS2 of the mmlem package" "$T/v/ibmcom/macs/MMLEM.OS2" || fail "MMLEM.OS2 not in the lowercase folder"
	[ ! -e "$T/v/IBMCOM" ] || fail "an upper-case IBMCOM folder was made beside ibmcom"
	grep -q '^\[MMLEM_nif\]' "$T/v/ibmcom/protocol.ini" || fail "no MMLEM_nif section"
	! grep -qi 'PCNTND' "$T/v/ibmcom/protocol.ini" || fail "the PCnet section is still there"
	all_crlf CONFIG.SYS
	check_clean
}

t_82545em_without_a_subscription_is_refused() {
	volume arcaos-d-pcnet
	make_sysfs "$T/sys" "${VBOX_BASE[@]}" "$(vbox_nic 0000:00:03.0 82545EM)"
	before=$(snapshot "$T/v")
	wd --yes --root "$T/v" --pci "sysfs:$T/sys" configure nic
	assert_rc 4
	assert_err "no driver the subscription allows for the 82545EM at 0000:00:03.0"
	assert_err "'drivers' entitlement"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the volume changed"
}

t_slot_limits_configure_to_one_nic() {
	volume ecs21-e1000
	listing "00:03.0 1022:2000 40" "00:08.0 8086:100e 02"
	wd --yes --root "$T/v" --pci "lspci:$T/lspci" --json configure nic --slot 00:03.0
	assert_rc 0
	assert_json "[(n['slot'], n['package']) for n in d['nics']] == [('0000:00:03.0', 'pcntnd')]"
	expect_changes CONFIG.SYS '+DEVICE=C:\IBMCOM\MACS\PCNTND.OS2'
}

t_a_nic_only_a_subscription_drives_does_not_stop_the_others() {
	volume ecs21-e1000
	listing "00:03.0 8086:100f 01" "00:08.0 8086:100e 02"
	wd --yes --root "$T/v" --pci "lspci:$T/lspci" --json configure nic
	assert_rc 0
	assert_json "[(n['slot'], n['package']) for n in d['nics']] == [('0000:00:08.0', 'e1000')]"
	assert_json "any('82545EM at 0000:00:03.0' in n and 'left as it is' in n for n in d['notes'])"
}

t_two_nics_configured_together() {
	volume ecs21-e1000
	subscribe drivers
	listing "00:03.0 1022:2000 40" "00:08.0 8086:100e 02"
	wd --root "$T/v" --pci "lspci:$T/lspci" setup --yes
	assert_rc 0
	# The 82540EM takes the E1000 line; the PCnet gets a new line after PROTMAN.OS2.
	expect_changes CONFIG.SYS '-DEVICE=C:\IBMCOM\MACS\E1000.OS2' '+DEVICE=C:\IBMCOM\MACS\MMLEM.OS2' \
		'+DEVICE=C:\IBMCOM\MACS\PCNTND.OS2'
	grep -A1 -a 'PROTMAN.OS2' "$T/v/CONFIG.SYS" | tail -1 | grep -q 'PCNTND.OS2' ||
		fail "the PCnet line is not right after PROTMAN.OS2"
	grep -q '^\[PCNTND_nif\]' "$T/v/IBMCOM/PROTOCOL.INI" || fail "no PCNTND_nif"
	grep -q '^\[MMLEM_nif\]' "$T/v/IBMCOM/PROTOCOL.INI" || fail "no MMLEM_nif"
	grep -q 'PCNTND_nif = PCNTND.NIF' "$T/v/IBMCOM/PROTOCOL.INI" || fail "no IBMLXCFG entry"
	check_clean
}

t_two_82540em_on_one_driver_get_instances() {
	volume two-nics
	subscribe drivers
	listing "00:03.0 8086:100e 02" "00:08.0 8086:100e 02"
	wd --yes --root "$T/v" --pci "lspci:$T/lspci" --json configure nic
	assert_rc 0
	assert_json "[(n['section'], n['driver_name'], n['replaced_section']) for n in d['nics']] == [('MMLEM_nif', 'MMLEM$', 'E1000_nif'), ('MMLEM_nif2', 'MMLEM2$', 'E1000_nif2')]"
	expect_changes CONFIG.SYS '-DEVICE=C:\IBMCOM\MACS\E1000.OS2' '-DEVICE=C:\IBMCOM\MACS\E1000.OS2' \
		'+DEVICE=C:\IBMCOM\MACS\MMLEM.OS2' '+DEVICE=C:\IBMCOM\MACS\MMLEM.OS2 /A1'
	# NetBIOS adapter numbers are binding positions: they stay.
	grep -q 'Bindings = MMLEM_nif,MMLEM_nif2' "$T/v/IBMCOM/PROTOCOL.INI" || fail "binding order"
	check_clean
}

t_virtio_has_no_driver() {
	volume ecs21-e1000
	before=$(snapshot "$T/v")
	wd --root "$T/v" --pci "vbox:$FIX/pci/vbox-virtio-only.txt" setup --yes
	assert_rc 5
	assert_err "no network adapter warpdrv can configure"
	assert_err "VBoxManage modifyvm VM --nictype1 82540EM"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the volume changed"
}

t_nat_adapter_gets_a_note() {
	volume ecs21-e1000
	wd --root "$T/v" --pci "vbox:$FIX/pci/vbox-nat-82540em.txt" --dry-run setup
	assert_rc 0
	assert_out "attached to NAT; bridged networking is recommended"
}

t_no_networking() {
	volume ecs21-e1000
	rm "$T/v/IBMCOM/PROTOCOL.INI"
	before=$(snapshot "$T/v")
	wd --yes --root "$T/v" --pci "lspci:$FIX/pci/vbox-82540em.lspci-n" configure nic
	assert_rc 1
	assert_err "no MPTS networking (no IBMCOM\\PROTOCOL.INI)"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the volume changed"
	volume warp452-pcnet
	grep -v PROTMAN "$T/v/CONFIG.SYS" >"$T/c" && mv "$T/c" "$T/v/CONFIG.SYS"
	before=$(snapshot "$T/v")
	wd --yes --root "$T/v" --pci "lspci:$FIX/pci/vbox-82540em.lspci-n" configure nic
	assert_rc 1
	assert_err "no DEVICE=...\\PROTMAN.OS2 line"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the volume changed"
}

t_forced_driver_that_does_not_drive_the_device() {
	volume ecs21-e1000
	before=$(snapshot "$T/v")
	wd --yes --root "$T/v" --pci "lspci:$FIX/pci/vbox-82540em.lspci-n" configure nic --driver pcntnd
	assert_rc 1
	assert_err "--driver pcntnd: pcntnd does not drive the 82540EM at 0000:00:03.0"
	wd --yes --root "$T/v" --pci "lspci:$FIX/pci/vbox-82540em.lspci-n" configure nic --driver mmlem
	assert_rc 4
	assert_err "--driver mmlem"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the volume changed"
	wd --yes --root "$T/v" --pci "lspci:$FIX/pci/vbox-82540em.lspci-n" configure nic --driver frob
	assert_rc 1
	assert_err "--driver frob: no NIC driver package of that name"
	wd --yes --root "$T/v" --pci "lspci:$FIX/pci/vbox-82540em.lspci-n" configure nic --slot 00:09.0
	assert_rc 1
	assert_err "--slot 00:09.0: no network controller there"
	wd --yes --root "$T/v" configure frob
	assert_rc 2
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the volume changed"
}

# An eCS guest with OS2APIC.PSD, APM.SYS and VAPM.SYS, and a final Ctrl-Z.
acpi_volume() {
	volume ecs21-e1000
	python3 - "$T/v/CONFIG.SYS" <<'PY'
import sys
p = sys.argv[1]
s = open(p, 'rb').read()
s = s.replace(b'REM [ Base Device Drivers ]\r\n',
              b'REM [ Base Device Drivers ]\r\nPSD=OS2APIC.PSD\r\n')
s = s.replace(b'DEVICE=C:\\OS2\\BOOT\\TESTCFG2.SYS\r\n',
              b'DEVICE=C:\\OS2\\BOOT\\TESTCFG2.SYS\r\nDEVICE=C:\\OS2\\BOOT\\APM.SYS\r\n')
s = s.replace(b'DEVICE=C:\\OS2\\MDOS\\VDPMI.SYS\r\n',
              b'DEVICE=C:\\OS2\\MDOS\\VDPMI.SYS\r\nDEVICE=C:\\OS2\\MDOS\\VAPM.SYS\r\n')
open(p, 'wb').write(s + b'\x1a')
PY
	mkdir -p "$T/v/OS2/MDOS"
	touch "$T/v/OS2/BOOT/OS2APIC.PSD" "$T/v/OS2/BOOT/APM.SYS" "$T/v/OS2/MDOS/VAPM.SYS"
	rm -rf "$T/orig"
	cp -a "$T/v" "$T/orig"
}

t_acpi_from_os2apic_and_apm() {
	acpi_volume
	subscribe acpi
	wd --yes --root "$T/v" --pci "lspci:$FIX/pci/vbox-82540em.lspci-n" configure acpi
	assert_rc 0
	expect_changes CONFIG.SYS '-PSD=OS2APIC.PSD' '+PSD=ACPI.PSD' '-DEVICE=C:\OS2\BOOT\APM.SYS' \
		'+BASEDEV=APM.ADD' '-DEVICE=C:\OS2\MDOS\VAPM.SYS' '+RUN=C:\OS2\ACPIDAEMON.EXE'
	# in place: the PSD line where OS2APIC.PSD stood, APM.ADD where APM.SYS stood
	grep -a -A1 'REM \[ Base Device Drivers \]' "$T/v/CONFIG.SYS" | grep -q 'PSD=ACPI.PSD' ||
		fail "PSD=ACPI.PSD is not where OS2APIC.PSD was"
	grep -a -A1 'TESTCFG2.SYS' "$T/v/CONFIG.SYS" | grep -q 'BASEDEV=APM.ADD' ||
		fail "BASEDEV=APM.ADD is not where APM.SYS was"
	[ "$(tail -c 1 "$T/v/CONFIG.SYS" | od -An -tx1 | tr -d ' ')" = "1a" ] || fail "the Ctrl-Z is gone"
	all_crlf CONFIG.SYS
	[ -f "$T/v/OS2/BOOT/ACPI.PSD" ] && [ -f "$T/v/OS2/DLL/ACPI32.DLL" ] || fail "ACPI files not installed"
	check_clean
	# idempotent
	before=$(snapshot "$T/v")
	wd --yes --root "$T/v" --pci "lspci:$FIX/pci/vbox-82540em.lspci-n" configure acpi
	assert_rc 0
	assert_out "Nothing to do"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the second run changed the volume"
}

t_acpi_without_subscription() {
	acpi_volume
	before=$(snapshot "$T/v")
	wd --yes --root "$T/v" configure acpi
	assert_rc 4
	assert_err "acpi-psd 3.23.16: needs the 'acpi' entitlement"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the volume changed"
}

t_setup_second_run_changes_nothing_and_rollback_restores() {
	acpi_volume
	subscribe drivers,acpi
	wd --root "$T/v" --pci "lspci:$FIX/pci/vbox-82540em.lspci-n" setup --yes
	assert_rc 0
	assert_out "generation 1"
	check_clean
	after=$(snapshot "$T/v")
	wd --root "$T/v" --pci "lspci:$FIX/pci/vbox-82540em.lspci-n" setup --yes
	assert_rc 0
	assert_out "Nothing to do"
	[ "$(snapshot "$T/v")" = "$after" ] || fail "the second run changed the volume"
	# the copies from before generation 1 are plain files
	assert_same_file "$T/v/var/lib/warpdrv/generations/1/CONFIG.SYS" "$T/orig/CONFIG.SYS"
	assert_same_file "$T/v/var/lib/warpdrv/generations/1/PROTOCOL.INI" "$T/orig/IBMCOM/PROTOCOL.INI"
	wd --yes --root "$T/v" rollback
	assert_rc 0
	assert_same_file "$T/v/CONFIG.SYS" "$T/orig/CONFIG.SYS"
	assert_same_file "$T/v/IBMCOM/PROTOCOL.INI" "$T/orig/IBMCOM/PROTOCOL.INI"
	wd --root "$T/v" --json history
	assert_rc 0
	assert_json "[(g['generation'], g['command']) for g in d['generations']] == [(1, 'setup'), (2, 'rollback 1')]"
	# packages stay installed
	assert_json "sorted(h['package'] for h in d['history'] if h['action'] == 'install') == ['acpi-psd', 'mmlem']"
	# rolling back the rollback gives the configured files again
	wd --yes --root "$T/v" rollback 2
	assert_rc 0
	assert_same_file "$T/v/CONFIG.SYS" "$T/v/var/lib/warpdrv/generations/2/CONFIG.SYS"
	wd --yes --root "$T/v" rollback 9
	assert_rc 1
	assert_err "rollback 9: no such generation"
}

t_setup_asks_and_dry_run_writes_nothing() {
	volume ecs21-e1000
	subscribe drivers
	before=$(snapshot "$T/v")
	wd --root "$T/v" --pci "lspci:$FIX/pci/vbox-82540em.lspci-n" setup
	assert_rc 2
	assert_err "no terminal to ask on: add --yes"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "setup without --yes changed the volume"
	wd --root "$T/v" --pci "lspci:$FIX/pci/vbox-82540em.lspci-n" --dry-run setup
	assert_rc 0
	assert_out "+DEVICE=C:\\IBMCOM\\MACS\\MMLEM.OS2"
	assert_out "Dry run: nothing was written"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "--dry-run changed the volume"
	wd --root "$T/v" --pci "lspci:$FIX/pci/vbox-82540em.lspci-n" --json --dry-run setup
	assert_rc 0
	assert_json "d['changed'] and not d['applied'] and d['install'] == ['mmlem'] and '+DEVICE=C:\\\\IBMCOM\\\\MACS\\\\MMLEM.OS2' in d['diff']"
}

t_detect_names_the_driver() {
	volume ecs21-e1000
	wd --root "$T/v" --json detect --pci "lspci:$FIX/pci/vbox-82540em.lspci-n"
	assert_rc 0
	assert_json "[(x['package'], x['package_note']) for x in d['devices'] if x['network']] == [('e1000', 'MMLEM needs a subscription with drivers; using E1000')]"
	subscribe drivers
	wd --root "$T/v" --json detect --pci "lspci:$FIX/pci/vbox-82540em.lspci-n"
	assert_json "[x['package'] for x in d['devices'] if x['network']] == ['mmlem']"
}

run_tests
