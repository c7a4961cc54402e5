#!/usr/bin/env bash
# The boot model through setup: one fixture volume for each class of volume
# where setup once said "Done" on a network that would not start. Each runs
# with and without a subscription: the changed lines are checked one by one,
# `check` is clean on the result, a second run changes nothing and rollback
# gives the files back byte for byte. Refusals leave the volume unchanged.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/setup_lib.sh"
PI=IBMCOM/PROTOCOL.INI

one_nic() { listing "00:03.0 8086:100e 02"; }
two_nics() { listing "00:03.0 8086:100e 02" "00:08.0 8086:100e 02"; }

# Setup on $T/v with the listing; asserts it applied and told no untruth.
setup_applies() {
	wd --root "$T/v" --pci "lspci:$T/lspci" setup --yes
	assert_rc 0
	assert_out "Done: generation"
	assert_no_out "already configured"
}

# Setup on $T/v is refused with exit 1, the message given, nothing written.
setup_refused() { # MESSAGE
	local before
	before=$(snapshot "$T/v")
	wd --root "$T/v" --pci "lspci:$T/lspci" setup --yes
	assert_rc 1
	assert_err "$1"
	assert_err "nothing was changed"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "refused, but the volume changed"
}

# An NE2000 whose section's DriverName is not NE2000$ and no NIF says so:
# the section is found through [IBMLXCFG], renamed, and TCP/IP follows.
ne2000_case() { # PACKAGE
	local D=$1
	setup_applies
	assert_out "replaces NE2000.OS2 [NE2000_nif]"
	assert_out "drops IOBASE = 0x300: NE2000 only"
	assert_out "drops INTERRUPT = 3: NE2000 only"
	expect_changes $PI "-   NE2000_nif = NE2000.NIF" "+   ${D}_nif = ${D}.NIF" \
		"-   Bindings = NE2000_nif" "+   Bindings = ${D}_nif" "-[NE2000_nif]" "+[${D}_nif]" \
		'-   DriverName = MS2000$' "+   DriverName = ${D}\$" "-   IOBASE = 0x300" "-   INTERRUPT = 3"
	all_crlf CONFIG.SYS
	all_crlf $PI
}

t_ne2000_own_drivername_without_a_subscription() {
	volume ne2000-own-name
	one_nic
	ne2000_case E1000
	expect_changes CONFIG.SYS '-DEVICE=C:\IBMCOM\MACS\NE2000.OS2' '+DEVICE=C:\IBMCOM\MACS\E1000.OS2'
	second_run_and_rollback "$T/lspci" CONFIG.SYS $PI
}

t_ne2000_own_drivername_with_a_subscription() {
	volume ne2000-own-name
	subscribe drivers,acpi
	one_nic
	ne2000_case MMLEM
	expect_changes CONFIG.SYS '-DEVICE=C:\IBMCOM\MACS\NE2000.OS2' '+DEVICE=C:\IBMCOM\MACS\MMLEM.OS2' \
		'+PSD=ACPI.PSD' '+BASEDEV=APM.ADD' '+RUN=C:\OS2\ACPIDAEMON.EXE'
	second_run_and_rollback "$T/lspci" CONFIG.SYS $PI
}

# Two 3Com adapters, the second answering to the vendor's EL9XB$, both in
# one quoted NetBEUI Bindings list: both are taken over, in binding order.
t_vendor_instance_names_without_a_subscription() {
	volume 3com-vendor-names
	two_nics
	setup_applies
	assert_out "replaces EL90X.OS2 [EL90X_nif2]"
	case $OUT$ERR in *"stays unconfigured"* | *"cannot be told"*) fail "a card said to be unconfigured: $OUT $ERR" ;; esac
	expect_changes CONFIG.SYS '-DEVICE=C:\IBMCOM\MACS\EL90X.OS2' '-DEVICE=C:\IBMCOM\MACS\EL90X.OS2' \
		'+DEVICE=C:\IBMCOM\MACS\E1000.OS2' '+DEVICE=C:\IBMCOM\MACS\E1000.OS2'
	expect_changes $PI "-   EL90X_nif = EL90X.NIF" "-   EL90X_nif2 = EL90X.NIF" \
		"+   E1000_nif = E1000.NIF" "+   E1000_nif2 = E1000.NIF" \
		'-   Bindings = "EL90X_nif","EL90X_nif2"' '+   Bindings = "E1000_nif","E1000_nif2"' \
		"-[EL90X_nif]" "+[E1000_nif]" "-[EL90X_nif2]" "+[E1000_nif2]" \
		'-   DriverName = EL90X$' '+   DriverName = E1000$' \
		'-   DriverName = EL9XB$' '+   DriverName = E1002$'
	second_run_and_rollback "$T/lspci" CONFIG.SYS $PI
}

t_vendor_instance_names_with_a_subscription() {
	volume 3com-vendor-names
	subscribe drivers,acpi
	two_nics
	setup_applies
	expect_changes CONFIG.SYS '-DEVICE=C:\IBMCOM\MACS\EL90X.OS2' '-DEVICE=C:\IBMCOM\MACS\EL90X.OS2' \
		'+DEVICE=C:\IBMCOM\MACS\MMLEM.OS2' '+DEVICE=C:\IBMCOM\MACS\MMLEM.OS2 /A1' \
		'+PSD=ACPI.PSD' '+BASEDEV=APM.ADD' '+RUN=C:\OS2\ACPIDAEMON.EXE'
	# Instance 1's line first.
	grep -a -A1 'MMLEM.OS2' "$T/v/CONFIG.SYS" | head -2 | tail -1 | grep -q 'MMLEM.OS2 /A1' ||
		fail "the /A1 line does not follow the first adapter's"
	grep -aq 'Bindings = "MMLEM_nif","MMLEM_nif2"' "$T/v/$PI" || fail "NetBEUI lost a binding"
	grep -aq 'DriverName = MMLEM2\$' "$T/v/$PI" || fail "no MMLEM2\$"
	second_run_and_rollback "$T/lspci" CONFIG.SYS $PI
}

# Two candidate sections for one line: refused, naming both; --section picks.
t_ambiguous_old_section_needs_section_option() {
	volume ne2000-own-name
	python3 - "$T/v/$PI" <<'PY'
import sys
p = sys.argv[1]
s = open(p, 'rb').read()
s = s.replace(b'   NE2000_nif = NE2000.NIF\r\n', b'   NE2000_nif = NE2000.NIF\r\n   NE2000_nif2 = NE2000.NIF\r\n')
s = s.replace(b'Bindings = NE2000_nif', b'Bindings = NE2000_nif,NE2000_nif2')
s += b'\r\n[NE2000_nif2]\r\n\r\n   DriverName = MS2001$\r\n'
open(p, 'wb').write(s)
PY
	cp -a "$T/v/." "$T/orig/"
	one_nic
	setup_refused "[NE2000_nif] or [NE2000_nif2] could be its PROTOCOL.INI section: run again with --section NAME"
	wd --root "$T/v" --pci "lspci:$T/lspci" setup --yes --section NE2000_nif2
	assert_rc 0
	assert_out "replaces NE2000.OS2 [NE2000_nif2]"
	assert_out "[NE2000_nif] answers to no driver CONFIG.SYS loads and --section chose [NE2000_nif2]"
	grep -aq "Bindings = ,E1000_nif" "$T/v/$PI" || fail "the chosen section was not taken"
	! grep -aq "NE2000_nif" "$T/v/$PI" || fail "the section ruled out is still there"
	check_clean
}

# Two NE2000 adapters, neither DriverName known: the lines map to the
# candidate sections in binding order (here the reverse of the file's).
t_two_guessed_adapters_map_in_binding_order() {
	volume ne2000-own-name
	python3 - "$T/v/$PI" "$T/v/CONFIG.SYS" <<'PY'
import sys
p, c = sys.argv[1], sys.argv[2]
s = open(p, 'rb').read()
s = s.replace(b'   NE2000_nif = NE2000.NIF\r\n', b'   NE2000_nif = NE2000.NIF\r\n   NE2000_nif2 = NE2000.NIF\r\n')
s = s.replace(b'Bindings = NE2000_nif', b'Bindings = NE2000_nif2,NE2000_nif')
s += b'\r\n[NE2000_nif2]\r\n\r\n   DriverName = MS2001$\r\n'
open(p, 'wb').write(s)
b = open(c, 'rb').read()
b = b.replace(b'DEVICE=C:\\IBMCOM\\MACS\\NE2000.OS2\r\n', b'DEVICE=C:\\IBMCOM\\MACS\\NE2000.OS2\r\n' * 2)
open(c, 'wb').write(b)
PY
	cp -a "$T/v/." "$T/orig/"
	subscribe drivers
	two_nics
	wd --root "$T/v" --pci "lspci:$T/lspci" --json setup --yes
	assert_rc 0
	assert_json "[(n['replaced_section'], n['section']) for n in d['nics']] == [('NE2000_nif2', 'MMLEM_nif'), ('NE2000_nif', 'MMLEM_nif2')]"
	grep -aq 'Bindings = MMLEM_nif,MMLEM_nif2' "$T/v/$PI" || fail "binding positions changed"
	second_run_and_rollback "$T/lspci" CONFIG.SYS $PI
}

# PROTMAN reads \MPTS\PROTOCOL.INI: that one changes, the stale
# \IBMCOM\PROTOCOL.INI stays as it is and check says it is unused.
protman_in_mpts_case() {
	wd --root "$T/v" --json check
	assert_rc 0
	assert_json "[f['code'] for f in d['findings']] == ['protocol-ini-unused']"
}

t_protman_folder_followed_without_a_subscription() {
	volume protman-in-mpts
	one_nic
	protman_in_mpts_case
	local before
	before=$(snapshot "$T/v")
	wd --root "$T/v" --pci "lspci:$T/lspci" setup --yes
	assert_rc 0
	assert_out "already configured"
	assert_out "Nothing to do"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the volume changed"
}

t_protman_folder_followed_with_a_subscription() {
	volume protman-in-mpts
	subscribe drivers,acpi
	one_nic
	setup_applies
	assert_out "b/MPTS/PROTOCOL.INI"
	assert_same_file "$T/orig/$PI" "$T/v/$PI"
	expect_changes MPTS/PROTOCOL.INI "-   E1000_nif = E1000.NIF" "+   MMLEM_nif = MMLEM.NIF" \
		"-   Bindings = E1000_nif" "+   Bindings = MMLEM_nif" "-[E1000_nif]" "+[MMLEM_nif]" \
		'-   DriverName = E1000$' '+   DriverName = MMLEM$'
	protman_in_mpts_case
	second_run_and_rollback "$T/lspci" CONFIG.SYS MPTS/PROTOCOL.INI $PI
}

t_protman_on_another_drive_is_refused() {
	volume protman-other-drive
	one_nic
	setup_refused "reads I:\\IBMCOM\\PROTOCOL.INI, on drive I:, not on this volume (C:)"
	subscribe drivers,acpi
	setup_refused "on drive I:"
	wd --root "$T/v" --json check
	assert_rc 0
	assert_json "sorted(f['code'] for f in d['findings']) == ['protocol-ini-elsewhere', 'protocol-ini-unused']"
}

# E1000 stays: every keyword stays, nothing is written. MMLEM comes: the
# plan names the keyword it drops, and the eCS daemon line moves to the
# daemon the package installs.
t_user_setting_kept_when_the_driver_stays() {
	volume ecs-e1000-settings
	one_nic
	local before
	before=$(snapshot "$T/v")
	wd --root "$T/v" --pci "lspci:$T/lspci" setup --yes
	assert_rc 0
	assert_out "already configured"
	assert_out "Nothing to do"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the volume changed"
	wd --root "$T/v" history
	assert_no_out "setup"
}

t_user_setting_dropped_by_name_and_daemon_moved_with_a_subscription() {
	volume ecs-e1000-settings
	subscribe drivers,acpi
	one_nic
	setup_applies
	assert_out "drops SPEEDDUPLEX = 3: E1000 only"
	expect_changes CONFIG.SYS '-DEVICE=C:\IBMCOM\MACS\E1000.OS2' '+DEVICE=C:\IBMCOM\MACS\MMLEM.OS2' \
		'-RUN=C:\ECS\BIN\ACPIDAEMON.EXE' '+RUN=C:\OS2\ACPIDAEMON.EXE'
	grep -q "ACPIDAEMON.EXE of the acpi-psd package" "$T/v/OS2/ACPIDAEMON.EXE" ||
		fail "the daemon CONFIG.SYS starts is not the package's"
	second_run_and_rollback "$T/lspci" CONFIG.SYS $PI
}

# A second adapter of E1000 goes after the first, names itself E1002$ (the
# instance scheme of its manifest: load order), takes no switch, and is said
# to be bound to nothing (docs/setup.md, "Instances").
t_second_e1000_adapter_after_the_first() {
	volume ecs-e1000-settings
	two_nics
	wd --root "$T/v" --pci "lspci:$T/lspci" setup --yes
	assert_rc 0
	assert_out "NIC 0000:00:08.0 82540EM: e1000 4.02 (E1000.OS2, E1000_nif2)"
	assert_out "note: [E1000_nif2] is bound to no protocol"
	case $ERR in *"stays unconfigured"*) fail "a card left unconfigured: $ERR" ;; esac
	tr -d '\r' <"$T/v/CONFIG.SYS" | grep -A1 -x 'DEVICE=C:\\IBMCOM\\MACS\\E1000.OS2' |
		grep -qx 'DEVICE=C:\\IBMCOM\\MACS\\E1000.OS2' || fail "the second line is not after the first"
	grep -aq 'DriverName = E1002\$' "$T/v/IBMCOM/PROTOCOL.INI" || fail "no E1002\$"
}

t_lan_manager_is_refused_and_checks_clean() {
	volume lanman
	one_nic
	setup_refused "LAN Manager's"
	subscribe drivers,acpi
	setup_refused "not MPTS"
	wd --root "$T/v" --json check
	assert_rc 0
	assert_json "[f['code'] for f in d['findings']] == ['not-mpts']"
}

t_protocol_ini_without_prot_man_is_no_mpts() {
	for content in "" "binary"; do
		volume ne2000-own-name
		if [ -n "$content" ]; then printf '\001\002\377\000' >"$T/v/$PI"; else : >"$T/v/$PI"; fi
		one_nic
		local before
		before=$(snapshot "$T/v")
		wd --root "$T/v" --pci "lspci:$T/lspci" setup --yes
		assert_rc 1
		assert_err "no MPTS networking"
		assert_err "[PROT_MAN]"
		[ "$(snapshot "$T/v")" = "$before" ] || fail "the volume changed"
		wd --root "$T/v" --json check
		assert_rc 1
		assert_json "any(f['code'] == 'protocol-ini-not-mpts' and f['severity'] == 'error' for f in d['findings'])"
	done
}

# A plan broken on purpose (a test build's hook) is refused by the
# postcondition before anything is written.
t_broken_plan_is_refused_by_the_postcondition() {
	volume ecs-e1000-settings
	subscribe drivers
	one_nic
	local before
	before=$(snapshot "$T/v")
	WARPDRV_TEST_BREAK_PLAN=1 run "$WD" --root "$T/v" --pci "lspci:$T/lspci" setup --yes
	if [ "$RC" -eq 0 ]; then
		skip "this build has no test hooks (build with -DWD_TEST_HOOKS)"
	fi
	assert_rc 1
	assert_err "the plan fails its check: [tcpip_nif] was bound to [E1000_nif]"
	assert_err "nothing was written"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the volume changed"
}

run_tests
