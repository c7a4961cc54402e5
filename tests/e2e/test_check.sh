#!/usr/bin/env bash
# warpdrv check: each rule shown by a volume that breaks it and absent from the
# healthy fixture volumes; the volume is never written.
. "$(dirname "$0")/lib.sh"
VOLS="ecs21-e1000 arcaos-d-pcnet warp452-pcnet two-nics"

# A copy of a fixture volume to break: $V.
copy() {
	V="$T/vol"
	rm -rf "$V"
	cp -R "$FIX/volumes/$1" "$V"
}
# Runs check --json on $V and asserts the volume is unchanged.
check_json() {
	local before
	before=$(snapshot "$V")
	wd --root "$V" --json check "$@"
	[ "$(snapshot "$V")" = "$before" ] || fail "check changed the volume"
}
# has CODE FILE LINE SEVERITY
has() {
	assert_json "any(f['code'] == '$1' and f['path'] == r'$2' and f['line'] == $3 and f['severity'] == '$4' and len(f['message']) > 20 for f in d['findings'])"
}
# Replaces a whole CONFIG.SYS line (CR LF kept) with one or more lines.
cs_line() { # old new...
	local old=$1; shift
	python3 - "$V/CONFIG.SYS" "$old" "$@" <<'PY'
import sys
p, old, new = sys.argv[1], sys.argv[2], sys.argv[3:]
b = open(p, 'rb').read()
o = old.encode() + b'\r\n'
assert o in b, old
b = b.replace(o, b''.join(x.encode() + b'\r\n' for x in new), 1)
open(p, 'wb').write(b)
PY
}
pi_edit() { # python expression over s, the PROTOCOL.INI text
	python3 - "$V/IBMCOM/PROTOCOL.INI" "$1" <<'PY'
import sys
p = sys.argv[1]
s = open(p, 'rb').read().decode('latin-1')
t = eval(sys.argv[2])
assert t != s
open(p, 'wb').write(t.encode('latin-1'))
PY
}

t_healthy_volumes_have_no_finding() {
	for v in $VOLS; do
		before=$(snapshot "$FIX/volumes/$v")
		wd --root "$FIX/volumes/$v" --json check
		assert_rc 0
		assert_json 'd == {"format": 1, "findings": []}'
		wd --root "$FIX/volumes/$v" check
		assert_rc 0
		assert_out "No problems found"
		[ "$(snapshot "$FIX/volumes/$v")" = "$before" ] || fail "$v changed"
	done
}

t_no_volume_is_usage_error() {
	wd check
	assert_rc 2
	assert_err "no OS/2 volume given: use --root DIR or set WARPDRV_ROOT"
	wd --json check
	assert_rc 2
	assert_json 'd["error"]["exit_code"] == 2'
}

t_warpdrv_root_names_the_volume() {
	copy warp452-pcnet
	WARPDRV_ROOT="$V" run "$WD" check
	assert_rc 0
}

t_not_a_volume() {
	mkdir -p "$T/empty/OS2"
	before=$(snapshot "$T/empty")
	wd --root "$T/empty" check
	assert_rc 1
	assert_err "not an OS/2 boot volume"
	[ "$(snapshot "$T/empty")" = "$before" ] || fail "changed"
	wd --root "$T/nowhere" check
	assert_rc 1
	assert_err "no such folder"
}

t_lf_line_endings() {
	copy ecs21-e1000
	python3 -c 'import sys; p=sys.argv[1]; b=open(p,"rb").read(); open(p,"wb").write(b.replace(b"\r\n", b"\n"))' "$V/CONFIG.SYS"
	check_json
	assert_rc 1
	has line-endings CONFIG.SYS 1 error
	wd --root "$V" check
	assert_out "CONFIG.SYS line 1: error:"
	assert_out "CR LF"
}

t_file_missing_and_lowercase_folders() {
	copy arcaos-d-pcnet
	rm "$V/mptn/protocol/afos2.sys" "$V/os2/boot/apm.add"
	check_json
	assert_rc 1
	has file-missing CONFIG.SYS 3 error
	has file-missing CONFIG.SYS 26 error
	assert_json 'len(d["findings"]) == 2'
	wd --root "$V" check
	assert_out "D:\\MPTN\\PROTOCOL\\AFOS2.SYS, which is not on the volume"
}

# Each statement that loads a file naming one not on the volume is an error:
# the guest stops at boot (or loses what RUN=/CALL= starts) looking for it.
t_every_loading_statement_with_a_missing_file_is_an_error() {
	copy warp452-pcnet
	cs_line 'DEVICE=C:\OS2\BOOT\TESTCFG.SYS' 'DEVICE=C:\NONE\X.SYS' 'PSD=NONE.PSD' \
		'BASEDEV=NONE.ADD' 'IFS=C:\NONE\NONE.IFS' 'RUN=C:\NONE\NONE.EXE' 'CALL=C:\NONE\CMD.EXE'
	check_json
	assert_rc 1
	for line in 20 21 22 23 24 25; do
		has file-missing CONFIG.SYS $line error
	done
	assert_json 'len(d["findings"]) == 6'
	wd --root "$V" check
	assert_rc 1
	assert_out "CONFIG.SYS line 21: error:"
	assert_out "PSD= loads NONE.PSD, which is not on the volume"
}

t_other_drive_is_not_checked() {
	copy warp452-pcnet
	cs_line 'DEVICE=C:\OS2\BOOT\TESTCFG.SYS' 'DEVICE=E:\TOOLS\X.SYS' 'IFS=Q.IFS'
	check_json
	has file-missing CONFIG.SYS 21 error
	assert_json 'len(d["findings"]) == 1'
	# With the boot drive said to be E:, the E: line is looked for too.
	check_json --boot-drive E:
	has file-missing CONFIG.SYS 20 error
}

t_psd_with_path() {
	copy arcaos-d-pcnet
	cs_line 'PSD=ACPI.PSD' 'PSD=D:\OS2\BOOT\ACPI.PSD /VW'
	check_json
	assert_rc 1
	has psd-path CONFIG.SYS 2 error
	assert_json '"write PSD=ACPI.PSD /VW" in d["findings"][0]["message"]'
}

t_acpi_with_apm_or_apic() {
	copy arcaos-d-pcnet
	cs_line 'BASEDEV=APM.ADD' 'BASEDEV=APM.ADD' 'PSD=OS2APIC.PSD' 'DEVICE=D:\OS2\BOOT\APM.SYS' 'DEVICE=D:\OS2\MDOS\VAPM.SYS'
	touch "$V/os2/boot/os2apic.psd" "$V/os2/boot/apm.sys" "$V/os2/mdos/vapm.sys"
	check_json
	assert_rc 1
	has acpi-conflict CONFIG.SYS 4 error
	has acpi-conflict CONFIG.SYS 5 error
	has acpi-conflict CONFIG.SYS 6 error
	# Without the ACPI PSD the same lines are fine.
	cs_line 'PSD=ACPI.PSD' 'REM PSD=ACPI.PSD'
	check_json
	assert_rc 0
}

t_netbind_before_mac() {
	copy ecs21-e1000
	cs_line 'CALL=C:\IBMCOM\PROTOCOL\NETBIND.EXE'
	cs_line 'DEVICE=C:\IBMCOM\MACS\E1000.OS2' 'CALL=C:\IBMCOM\PROTOCOL\NETBIND.EXE' 'DEVICE=C:\IBMCOM\MACS\E1000.OS2'
	check_json
	assert_rc 1
	has netbind-order CONFIG.SYS 19 error
	assert_json 'len(d["findings"]) == 1'
}

t_protman_after_mac() {
	copy warp452-pcnet
	cs_line 'DEVICE=C:\IBMCOM\PROTMAN.OS2 /I:C:\IBMCOM'
	cs_line 'DEVICE=C:\IBMCOM\MACS\PCNTND.OS2' 'DEVICE=C:\IBMCOM\MACS\PCNTND.OS2' 'DEVICE=C:\IBMCOM\PROTMAN.OS2 /I:C:\IBMCOM'
	check_json
	assert_rc 1
	has protman-order CONFIG.SYS 44 error
}

t_binding_to_no_section() {
	copy ecs21-e1000
	pi_edit 's.replace("[tcpip_nif]\r\n\r\n   DriverName = TCPIP$\r\n   Bindings = E1000_nif", "[tcpip_nif]\r\n\r\n   DriverName = TCPIP$\r\n   Bindings = E1000_nif,E100_nif")'
	check_json
	assert_rc 1
	has binding-unknown 'IBMCOM\PROTOCOL.INI' 53 error
	assert_json 'len(d["findings"]) == 1 and "E100_nif" in d["findings"][0]["message"]'
}

t_mac_loaded_without_section() {
	copy two-nics
	pi_edit 's.replace("[E1000_nif2]\r\n\r\n   DriverName = E1002$\r\n", "").replace(",E1000_nif2", "").replace("   E1000_nif2 = E1000.NIF\r\n", "").rstrip("\r\n") + "\r\n"'
	check_json
	assert_rc 1
	has mac-no-section CONFIG.SYS 20 error
	assert_json 'len(d["findings"]) == 1 and "DriverName = E1002$" in d["findings"][0]["message"]'
}

t_mac_section_without_driver() {
	copy ecs21-e1000
	cs_line 'DEVICE=C:\IBMCOM\MACS\E1000.OS2' 'REM DEVICE=C:\IBMCOM\MACS\E1000.OS2'
	check_json
	assert_rc 1
	has section-no-driver 'IBMCOM\PROTOCOL.INI' 55 error
	# A section of a NIF's driver is a MAC section even when nothing binds it.
	copy warp452-pcnet
	printf '\r\n[E1000_nif]\r\n\r\n   DriverName = E1000$\r\n' >>"$V/IBMCOM/PROTOCOL.INI"
	cp "$FIX/volumes/ecs21-e1000/IBMCOM/MACS/E1000.NIF" "$V/IBMCOM/MACS/"
	check_json
	has section-no-driver 'IBMCOM\PROTOCOL.INI' 19 error
}

t_lxcfg_entry_without_section() {
	copy warp452-pcnet
	pi_edit 's.replace("   PCNTND_nif = PCNTND.NIF\r\n", "   PCNTND_nif = PCNTND.NIF\r\n   NETBEUI_nif = NETBEUI.NIF\r\n")'
	check_json
	assert_rc 1
	has lxcfg-unknown 'IBMCOM\PROTOCOL.INI' 9 error
}

t_two_sections_one_drivername() {
	copy warp452-pcnet
	printf '\r\n[PCNTND2_nif]\r\n\r\n   DriverName = pcntnd$\r\n' >>"$V/IBMCOM/PROTOCOL.INI"
	check_json
	assert_rc 1
	has drivername-twice 'IBMCOM\PROTOCOL.INI' 21 error
}

t_protocol_ini_missing() {
	copy warp452-pcnet
	rm "$V/IBMCOM/PROTOCOL.INI"
	check_json
	assert_rc 1
	has protocol-ini-missing CONFIG.SYS 43 error
}

t_unreadable_nif_is_a_warning() {
	copy warp452-pcnet
	printf '; nothing here\r\n' >"$V/IBMCOM/MACS/BROKEN.NIF"
	check_json
	assert_rc 0
	has nif-unreadable 'IBMCOM\MACS\BROKEN.NIF' 0 warning
}

t_real_config_sys_findings() {
	need_samples
	copy ecs21-e1000
	cp "$SAMPLES/os2yum/CONFIG.SYS" "$V/CONFIG.SYS"
	check_json
	assert_rc 1
	# GenMac twice, no section for either instance; E1000 section without driver.
	has mac-no-section CONFIG.SYS 46 error
	has mac-no-section CONFIG.SYS 47 error
	has section-no-driver 'IBMCOM\PROTOCOL.INI' 55 error
	assert_json 'not any(f["code"] == "line-endings" for f in d["findings"])'
	cp "$SAMPLES/updcd/CONFIG.SYS" "$V/CONFIG.SYS"
	check_json
	has line-endings CONFIG.SYS 1 error
}

# The fixtures of the boot model's classes: healthy or guessed, never a
# false error (warnings say what could not be verified).
t_model_fixtures_have_no_false_error() {
	for v in ne2000-own-name 3com-vendor-names protman-in-mpts protman-other-drive \
		ecs-e1000-settings lanman; do
		V="$FIX/volumes/$v"
		check_json
		assert_rc 0
		assert_json "[f for f in d['findings'] if f['severity'] == 'error'] == []"
	done
	V="$FIX/volumes/ne2000-own-name"
	check_json
	assert_json "any(f['code'] == 'mac-no-section' and f['severity'] == 'warning' and 'could not be verified' in f['message'] and '[NE2000_nif]' in f['message'] for f in d['findings'])"
	V="$FIX/volumes/protman-in-mpts"
	check_json
	assert_json "[(f['code'], f['path']) for f in d['findings']] == [('protocol-ini-unused', 'IBMCOM\\\\PROTOCOL.INI')]"
	V="$FIX/volumes/lanman"
	check_json
	assert_json "[f['code'] for f in d['findings']] == ['not-mpts']"
}

t_no_netbind() {
	copy ecs21-e1000
	cs_line 'CALL=C:\IBMCOM\PROTOCOL\NETBIND.EXE' 'REM CALL=C:\IBMCOM\PROTOCOL\NETBIND.EXE'
	check_json
	assert_rc 1
	has no-netbind CONFIG.SYS 25 error # the last DEVICE= from a PROTOCOL folder (IFNDIS.SYS)
}

# The case the issue found: NETBIND and NETBEUI.OS2 gone, [netbeui_nif] still bound.
t_protocol_bound_while_its_driver_is_gone() {
	copy ecs21-e1000
	cs_line 'CALL=C:\IBMCOM\PROTOCOL\NETBIND.EXE'
	cs_line 'DEVICE=C:\IBMCOM\PROTOCOL\NETBEUI.OS2'
	check_json
	assert_rc 1
	has protocol-not-loaded 'IBMCOM\PROTOCOL.INI' 19 error
	assert_json "any(f['code'] == 'no-netbind' and f['severity'] == 'error' for f in d['findings'])"
	assert_json "any('NETBEUI.OS2' in f['message'] for f in d['findings'] if f['code'] == 'protocol-not-loaded')"
}

t_mac_lines_without_protman() {
	copy ecs21-e1000
	cs_line 'DEVICE=C:\IBMCOM\PROTMAN.OS2 /I:C:\IBMCOM'
	check_json
	assert_rc 1
	has mac-without-protman CONFIG.SYS 18 error
}

t_protocol_ini_that_is_not_mpts() {
	copy ecs21-e1000
	for content in '' 'binary'; do
		if [ -n "$content" ]; then printf '\001\377\000\002' >"$V/IBMCOM/PROTOCOL.INI"; else : >"$V/IBMCOM/PROTOCOL.INI"; fi
		check_json
		assert_rc 1
		has protocol-ini-not-mpts 'IBMCOM\PROTOCOL.INI' 0 error
	done
}

t_protman_reads_another_drive() {
	V="$FIX/volumes/protman-other-drive"
	check_json
	assert_rc 0
	has protocol-ini-elsewhere CONFIG.SYS 11 warning
	has protocol-ini-unused 'IBMCOM\PROTOCOL.INI' 0 warning
	# Said to be this volume's drive, its PROTOCOL.INI is read and judged.
	# (the fixture has no I:\IBMCOM\MACS\E1000.OS2: a missing file is an error)
	wd --root "$V" --boot-drive I: --json check
	assert_rc 1
	has file-missing CONFIG.SYS 12 error
	assert_json "len(d['findings']) == 1"
	assert_json "not any(f['code'].startswith('protocol-ini') for f in d['findings'])"
}

t_check_takes_no_arguments() {
	wd --root "$FIX/volumes/ecs21-e1000" check extra
	assert_rc 2
	assert_err "check takes no arguments"
}

run_tests
