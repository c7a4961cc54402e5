#!/usr/bin/env bash
# Real configurations, round three (issue 20): a problem there before the
# change, two adapters of one vendor driver, the second card's slot, a change
# of medium, and check on healthy volumes. Each runs with and without a
# subscription: exit code, message, the changed lines one by one, check clean
# where setup says Done, a second run changing nothing, rollback byte for byte;
# a refusal leaves the volume's bytes as they were.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/setup_lib.sh"
PI=IBMCOM/PROTOCOL.INI

one_nic() { listing "00:03.0 8086:100e 02"; }
two_nics() { listing "00:03.0 8086:100e 02" "00:08.0 8086:100e 02"; }

setup_applies() {
	wd --root "$T/v" --pci "lspci:$T/lspci" setup --yes
	assert_rc 0
	assert_out "Done: generation"
}

setup_refused() { # MESSAGE
	local before
	before=$(snapshot "$T/v")
	wd --root "$T/v" --pci "lspci:$T/lspci" setup --yes
	assert_rc 1
	assert_err "$1"
	assert_err "nothing was"
	assert_no_out "Done"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "refused, but the volume changed"
}

# ---- 1. a problem there before: no NETBIND ----

NB_FIX='CALL=C:\IBMCOM\PROTOCOL\NETBIND.EXE'
NB_NOTE="repairs what was broken before this change: CONFIG.SYS ran no NETBIND.EXE, so no protocol was bound; adds $NB_FIX after DEVICE=C:\\IBMCOM\\PROTOCOL\\NETBIOS.OS2 (the last MAC or protocol driver)"

netbind_pi_changes() { # DRIVER
	local D=$1
	expect_changes $PI "-   PCNTND_nif = PCNTND.NIF" "+   ${D}_nif = ${D}.NIF" \
		"-   Bindings = PCNTND_nif" "+   Bindings = ${D}_nif" "-[PCNTND_nif]" "+[${D}_nif]" \
		'-   DriverName = PCNTND$' "+   DriverName = ${D}\$"
}

# NETBIND line placed after the last protocol driver (NETBIOS.OS2).
netbind_after_protocols() {
	tr -d '\r' <"$T/v/CONFIG.SYS" | grep -A1 -x 'DEVICE=C:\\IBMCOM\\PROTOCOL\\NETBIOS.OS2' | tail -1 |
		grep -qx "$(printf '%s' "$NB_FIX" | sed 's/\\/\\\\/g')" || fail "the NETBIND line is not after NETBIOS.OS2"
}

t_no_netbind_repaired_without_a_subscription() {
	volume no-netbind
	one_nic
	wd --root "$T/v" check
	assert_rc 1
	assert_out "CONFIG.SYS line 14: error: no CALL= line runs NETBIND.EXE, so no protocol is bound to an adapter and the network does not start: add $NB_FIX after this line"
	setup_applies
	assert_out "$NB_NOTE"
	assert_out "+$NB_FIX"
	expect_changes CONFIG.SYS '-DEVICE=C:\IBMCOM\MACS\PCNTND.OS2' '+DEVICE=C:\IBMCOM\MACS\E1000.OS2' "+$NB_FIX"
	netbind_pi_changes E1000
	netbind_after_protocols
	all_crlf CONFIG.SYS
	all_crlf $PI
	second_run_and_rollback "$T/lspci" CONFIG.SYS $PI
}

t_no_netbind_repaired_with_a_subscription() {
	volume no-netbind
	subscribe drivers,acpi
	one_nic
	setup_applies
	assert_out "$NB_NOTE"
	expect_changes CONFIG.SYS '-DEVICE=C:\IBMCOM\MACS\PCNTND.OS2' '+DEVICE=C:\IBMCOM\MACS\MMLEM.OS2' "+$NB_FIX" \
		'+PSD=ACPI.PSD' '+BASEDEV=APM.ADD' '+RUN=C:\OS2\ACPIDAEMON.EXE'
	netbind_pi_changes MMLEM
	netbind_after_protocols
	second_run_and_rollback "$T/lspci" CONFIG.SYS $PI
}

# NETBIND.EXE not where PROTMAN's folder says: no certain repair; setup
# refuses in check's words, naming it as the volume's, not the plan's.
no_netbind_refused() {
	rm "$T/v/IBMCOM/PROTOCOL/NETBIND.EXE"
	rm -rf "$T/orig" && cp -a "$T/v" "$T/orig"
	one_nic
	local msg="CONFIG.SYS line 14: no CALL= line runs NETBIND.EXE, so no protocol is bound to an adapter and the network does not start, and NETBIND.EXE is not at C:\\IBMCOM\\PROTOCOL\\NETBIND.EXE on this volume: copy MPTS's NETBIND.EXE there, then add $NB_FIX after this line (the last MAC or protocol driver)"
	wd --root "$T/v" check
	assert_rc 1
	assert_out "${msg/CONFIG.SYS line 14: /CONFIG.SYS line 14: error: }"
	setup_refused "already broken before this change: $msg [no-netbind]"
	assert_no_out "fails its check"
	case $ERR in *"the plan fails"*) fail "blamed on the plan: $ERR" ;; esac
}

t_no_netbind_without_netbind_exe_refused_without_a_subscription() {
	volume no-netbind
	no_netbind_refused
}

t_no_netbind_without_netbind_exe_refused_with_a_subscription() {
	volume no-netbind
	subscribe drivers,acpi
	no_netbind_refused
}

# ---- 2. two adapters of one vendor driver, the vendor's instance names ----

elnk16_pi_changes() { # DRIVER SECOND_DRIVERNAME
	local D=$1
	expect_changes $PI "-   ELNK16_NIF = ELNK16.NIF" "-   ELNK16_NIF2 = ELNK16.NIF" \
		"+   ${D}_nif = ${D}.NIF" "+   ${D}_nif2 = ${D}.NIF" \
		"-   Bindings = ELNK16_NIF,ELNK16_NIF2" "+   Bindings = ${D}_nif,${D}_nif2" \
		"-[ELNK16_NIF]" "+[${D}_nif]" "-[ELNK16_NIF2]" "+[${D}_nif2]" \
		'-   DriverName = ELNK16$' "+   DriverName = ${D}\$" \
		'-   DriverName = ELNK162$' "+   DriverName = $2" \
		"-   IOADDRESS = 0x300" "-   IOADDRESS = 0x310"
}

t_elnk16_twice_without_a_subscription() {
	volume elnk16-two
	check_clean
	two_nics
	wd --root "$T/v" --pci "lspci:$T/lspci" setup --yes
	assert_rc 0
	assert_out "replaces ELNK16.OS2 [ELNK16_NIF]"
	assert_out "replaces ELNK16.OS2 [ELNK16_NIF2]"
	assert_no_out "which no driver loaded by CONFIG.SYS answers"
	expect_changes CONFIG.SYS '-DEVICE=C:\IBMCOM\MACS\ELNK16.OS2' '-DEVICE=C:\IBMCOM\MACS\ELNK16.OS2' \
		'+DEVICE=C:\IBMCOM\MACS\E1000.OS2' '+DEVICE=C:\IBMCOM\MACS\E1000.OS2'
	elnk16_pi_changes E1000 'E1002$'
	all_crlf CONFIG.SYS
	all_crlf $PI
	second_run_and_rollback "$T/lspci" CONFIG.SYS $PI
}

t_elnk16_twice_with_a_subscription() {
	volume elnk16-two
	subscribe drivers,acpi
	two_nics
	setup_applies
	assert_out "replaces ELNK16.OS2 [ELNK16_NIF2]"
	expect_changes CONFIG.SYS '-DEVICE=C:\IBMCOM\MACS\ELNK16.OS2' '-DEVICE=C:\IBMCOM\MACS\ELNK16.OS2' \
		'+DEVICE=C:\IBMCOM\MACS\MMLEM.OS2' '+DEVICE=C:\IBMCOM\MACS\MMLEM.OS2 /A1' \
		'+PSD=ACPI.PSD' '+BASEDEV=APM.ADD' '+RUN=C:\OS2\ACPIDAEMON.EXE'
	elnk16_pi_changes MMLEM 'MMLEM2$'
	# NetBIOS adapters keep their numbers: position 0 and 1 of NetBEUI's Bindings.
	grep -aq 'ADAPTER1 = netbeui\$,1' "$T/v/$PI" || fail "ADAPTER1 changed"
	second_run_and_rollback "$T/lspci" CONFIG.SYS $PI
}

# ---- 3. instances: one rule, the manifest's instance scheme ----

# configure nic --off on a result with no driver before it and no
# subscription's driver to turn off: refused, the volume unchanged.
off_nothing() {
	local before
	before=$(snapshot "$T/v")
	wd --root "$T/v" --pci "lspci:$T/lspci" configure nic --off --yes
	assert_rc 1
	assert_err "which needs no subscription, and no driver needing none was there before it: nothing to turn off"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "a refused --off changed the volume"
}

# A second 82540EM and no old adapter for it: E1000's scheme (E1002$, by
# load order) configures it as its own line and section after the first;
# no protocol binds it yet, which a note says. check is clean, a second run
# changes nothing, rollback gives the files back; --off has nothing to do.
t_second_e1000_card_configured_without_a_subscription() {
	volume ecs-e1000-settings
	two_nics
	wd --root "$T/v" --pci "lspci:$T/lspci" --json setup --yes
	assert_rc 0
	assert_json "d['warnings'] == [] and [n['driver_name'] for n in d['nics']] == ['E1000\$', 'E1002\$']"
	assert_json "d['nics'][0]['unchanged'] and not d['nics'][1]['unchanged']"
	assert_json "any('[E1000_nif2] is bound to no protocol' in x for x in d['nics'][1]['notes'])"
	expect_changes CONFIG.SYS '+DEVICE=C:\IBMCOM\MACS\E1000.OS2'
	expect_changes $PI '+   E1000_nif2 = E1000.NIF' '+' '+[E1000_nif2]' '+' '+   DriverName = E1002$'
	all_crlf CONFIG.SYS
	all_crlf $PI
	second_run_and_rollback "$T/lspci" CONFIG.SYS $PI
	setup_applies
	off_nothing
}

# With a subscription MMLEM's /A1 and MMLEM2$: both cards configured;
# --off on the result goes back to E1000 by the same rule, E1000$ and
# E1002$, each its own line, and that is clean too.
t_second_card_configured_with_a_subscription() {
	volume ecs-e1000-settings
	subscribe drivers,acpi
	two_nics
	setup_applies
	case $ERR in *"stays unconfigured"*) fail "a card left unconfigured: $ERR" ;; esac
	grep -aq 'MMLEM.OS2 /A1' "$T/v/CONFIG.SYS" || fail "no /A1 line"
	grep -aq 'DriverName = MMLEM2\$' "$T/v/$PI" || fail "no MMLEM2\$"
	all_crlf CONFIG.SYS
	all_crlf $PI
	second_run_and_rollback "$T/lspci" CONFIG.SYS $PI
	setup_applies
	wd --root "$T/v" --pci "lspci:$T/lspci" configure nic --off --yes
	assert_rc 0
	assert_out "Done: generation"
	case $ERR in *"stays unconfigured"*) fail "a card left unconfigured: $ERR" ;; esac
	[ "$(grep -ac 'DEVICE=C:\\IBMCOM\\MACS\\E1000.OS2'$'\r''$' "$T/v/CONFIG.SYS")" = 2 ] ||
		fail "not two E1000 lines without a switch"
	grep -aq 'DriverName = E1002\$' "$T/v/$PI" || fail "no E1002\$"
	! grep -aq 'MMLEM' "$T/v/CONFIG.SYS" "$T/v/$PI" || fail "MMLEM is still there"
	all_crlf CONFIG.SYS
	all_crlf $PI
	check_clean
}

# A driver whose manifest declares no instance scheme (PCNTND): the one case
# where the second card stays unconfigured, said in a warning (in --json
# too); exit 0, nothing written.
t_no_instance_scheme_second_card_stays_unconfigured() {
	volume warp452-pcnet
	listing "00:03.0 1022:2000 40" "00:08.0 1022:2000 40"
	local msg="the Am79C973 at 0000:00:08.0 stays unconfigured: it would be PCNTND's adapter 2, and pcntnd's manifest declares no instance scheme (no DriverName for a further adapter), so only the first PCNTND is configured"
	wd --root "$T/v" --pci "lspci:$T/lspci" setup --yes
	assert_rc 0
	assert_err "warning: $msg"
	assert_out "Nothing to do"
	wd --root "$T/v" --pci "lspci:$T/lspci" --json setup --yes
	assert_rc 0
	assert_json "d['warnings'] == [\"$msg\"] and d['changed'] is False"
	[ "$(snapshot "$T/v")" = "$(snapshot "$T/orig")" ] || fail "the volume changed"
	check_clean
}

# ---- 3b. the vendor's own second-instance name ----

# Two 3Com adapters, the second answering to ELNK16X$ (the first name with
# a letter before the $), [IBMLXCFG] naming only the first: check pairs the
# second load with [ELNK16_NIF2] (no warning), and setup replaces both,
# every binding in its place, with and without a subscription; check clean,
# a second run changes nothing, rollback byte for byte, then --off.
elnk16x_case() { # DRIVER SECOND_DRIVERNAME SWITCH
	local D=$1
	wd --root "$T/v" --json check
	assert_rc 0
	assert_json "not any(f['code'] in ('mac-no-section', 'section-no-driver') for f in d['findings'])"
	two_nics
	setup_applies
	assert_out "replaces ELNK16.OS2 [ELNK16_NIF]"
	assert_out "replaces ELNK16.OS2 [ELNK16_NIF2]"
	expect_changes CONFIG.SYS '-DEVICE=C:\IBMCOM\MACS\ELNK16.OS2' '-DEVICE=C:\IBMCOM\MACS\ELNK16.OS2' \
		"+DEVICE=C:\\IBMCOM\\MACS\\${D}.OS2" "+DEVICE=C:\\IBMCOM\\MACS\\${D}.OS2$3" "${@:4}"
	expect_changes $PI "-   ELNK16_NIF = ELNK16.NIF" \
		"+   ${D}_nif = ${D}.NIF" "+   ${D}_nif2 = ${D}.NIF" \
		"-   Bindings = ELNK16_NIF,ELNK16_NIF2" "+   Bindings = ${D}_nif,${D}_nif2" \
		"-[ELNK16_NIF]" "+[${D}_nif]" "-[ELNK16_NIF2]" "+[${D}_nif2]" \
		'-   DriverName = ELNK16$' "+   DriverName = ${D}\$" \
		'-   DriverName = ELNK16X$' "+   DriverName = $2" \
		"-   IOADDRESS = 0x300" "-   IOADDRESS = 0x310"
	grep -aq 'ADAPTER1 = netbeui\$,1' "$T/v/$PI" || fail "ADAPTER1 changed"
	all_crlf CONFIG.SYS
	all_crlf $PI
	second_run_and_rollback "$T/lspci" CONFIG.SYS $PI
	setup_applies
}

t_elnk16x_vendor_letter_without_a_subscription() {
	volume elnk16x-two
	elnk16x_case E1000 'E1002$' ''
	off_nothing
}

t_elnk16x_vendor_letter_with_a_subscription() {
	volume elnk16x-two
	subscribe drivers,acpi
	elnk16x_case MMLEM 'MMLEM2$' ' /A1' '+PSD=ACPI.PSD' '+BASEDEV=APM.ADD' '+RUN=C:\OS2\ACPIDAEMON.EXE'
	cp "$T/v/$PI" "$T/pi.setup"
	wd --root "$T/v" --pci "lspci:$T/lspci" configure nic --off --yes
	assert_rc 0
	grep -aq 'Bindings = E1000_nif,E1000_nif2' "$T/v/$PI" || fail "the bindings moved"
	grep -aq 'DriverName = E1002\$' "$T/v/$PI" || fail "no E1002\$"
	[ "$(grep -ac 'DEVICE=C:\\IBMCOM\\MACS\\E1000.OS2'$'\r''$' "$T/v/CONFIG.SYS")" = 2 ] ||
		fail "not two E1000 lines"
	check_clean
}

# ---- 4. a change of medium ----

MEDIUM_MSG='[ODI2NDI_nif] (ODI2NDI, the NetWare requester'"'"'s link to NDIS) selects another medium (TOKEN-RING = "yes") and no Ethernet frame, but it is bound to [E1000_nif], an Ethernet adapter: it would get no frame it accepts; set the frame your network uses to "yes" (one of ETHERNET_802.2, ETHERNET_802.3, ETHERNET_II, ETHERNET_SNAP) and TOKEN-RING to "no" in [ODI2NDI_nif]'

# Token ring to Ethernet: refused, naming the section, the keywords and
# what to set; after the user sets the frame, setup applies and check is clean.
medium_case() { # DRIVER
	local D=$1
	one_nic
	check_clean
	setup_refused "the plan fails its check: after it, IBMCOM\\PROTOCOL.INI line 12: ${MEDIUM_MSG//E1000/$D} [medium]"
	# The user switches the Ethernet frame on, as the message says.
	python3 - "$T/v/$PI" <<'PY'
import sys
p = sys.argv[1]
s = open(p, 'rb').read()
s = s.replace(b'TOKEN-RING = "yes"', b'TOKEN-RING = "no"').replace(b'ETHERNET_802.2 = "no"', b'ETHERNET_802.2 = "yes"')
open(p, 'wb').write(s)
PY
	rm -rf "$T/orig" && cp -a "$T/v" "$T/orig"
	setup_applies
	local pi_lines=("-   IBMTOK_nif = IBMTOK.NIF" "+   ${D}_nif = ${D}.NIF"
		"-   Bindings = IBMTOK_nif" "+   Bindings = ${D}_nif" "-[IBMTOK_nif]" "+[${D}_nif]"
		'-   DriverName = IBMTOK$' "+   DriverName = ${D}\$" '-   ADAPTER = "PRIMARY"')
	# MAXTRANSMITS is E1000's keyword too (its NIF): carried there, dropped for MMLEM.
	[ "$D" = MMLEM ] && pi_lines+=("-   MAXTRANSMITS = 6")
	expect_changes $PI "${pi_lines[@]}"
	local cs_lines=('-DEVICE=C:\IBMCOM\MACS\IBMTOK.OS2' "+DEVICE=C:\\IBMCOM\\MACS\\${D}.OS2")
	[ "$D" = MMLEM ] && cs_lines+=('+PSD=ACPI.PSD' '+BASEDEV=APM.ADD' '+RUN=C:\OS2\ACPIDAEMON.EXE')
	expect_changes CONFIG.SYS "${cs_lines[@]}"
	all_crlf CONFIG.SYS
	all_crlf $PI
	check_clean
	grep -aq 'ETHERNET_802.2 = "yes"' "$T/v/$PI" || fail "the frame the user set is gone"
	second_run_and_rollback "$T/lspci" CONFIG.SYS $PI
}

t_medium_change_refused_then_applied_without_a_subscription() {
	volume tokenring-odi2ndi
	medium_case E1000
}

t_medium_change_refused_then_applied_with_a_subscription() {
	volume tokenring-odi2ndi
	subscribe drivers,acpi
	medium_case MMLEM
}

# --frame names the Ethernet frame: setup switches the protocol's section to
# it in the same change (an announced note), check is clean, rollback puts
# both files back byte for byte; a frame the protocol does not know leaves
# the refusal as it was.
t_medium_change_applied_with_the_frame_named() {
	volume tokenring-odi2ndi
	one_nic
	local before
	before=$(snapshot "$T/v")
	wd --root "$T/v" --pci "lspci:$T/lspci" setup --yes --frame 8023
	assert_rc 1
	assert_err "[medium]"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "refused, but the volume changed"
	rm -rf "$T/orig" && cp -a "$T/v" "$T/orig"
	wd --root "$T/v" --pci "lspci:$T/lspci" setup --yes --frame 802.3
	assert_rc 0
	assert_out "Done: generation"
	assert_out "to Ethernet, as --frame 802.3 asks: ETHERNET_802.3 = \"yes\", TOKEN-RING = \"no\""
	grep -aq 'ETHERNET_802.3 = "yes"' "$T/v/$PI" || fail "the frame is not on"
	grep -aq 'TOKEN-RING = "no"' "$T/v/$PI" || fail "token ring is still on"
	all_crlf $PI
	check_clean
	second_run_and_rollback "$T/lspci" CONFIG.SYS $PI
}

# check: the same words for a volume changed by hand to an Ethernet driver.
t_medium_check_error_after_a_change_by_hand() {
	volume tokenring-odi2ndi
	python3 - "$T/v" <<'PY'
import sys
v = sys.argv[1]
c = open(v + '/CONFIG.SYS', 'rb').read().replace(b'MACS\\IBMTOK.OS2', b'MACS\\E1000.OS2')
open(v + '/CONFIG.SYS', 'wb').write(c)
p = open(v + '/IBMCOM/PROTOCOL.INI', 'rb').read()
p = p.replace(b'IBMTOK_nif', b'E1000_nif').replace(b'IBMTOK.NIF', b'E1000.NIF').replace(b'IBMTOK$', b'E1000$')
open(v + '/IBMCOM/PROTOCOL.INI', 'wb').write(p)
PY
	touch "$T/v/IBMCOM/MACS/E1000.OS2"
	local before
	before=$(snapshot "$T/v")
	wd --root "$T/v" check
	assert_rc 1
	assert_out "IBMCOM\\PROTOCOL.INI line 12: error: $MEDIUM_MSG [medium]"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "check changed the volume"
}

# ---- 5. check's words for a healthy volume ----

MPTS_PI=MPTS/PROTOCOL.INI

t_check_names_the_protocol_ini_protman_reads() {
	volume mpts-folder-vendor-names
	wd --root "$T/v" check
	assert_rc 0
	assert_out "No problems found in CONFIG.SYS and MPTS\\PROTOCOL.INI."
	wd --root "$T/v" --json check
	assert_rc 0
	assert_json "d['findings'] == []"
}

mpts_folder_case() { # DRIVER SECOND_DRIVERNAME
	local D=$1
	two_nics
	setup_applies
	expect_changes $MPTS_PI "-   ELNK16_NIF = ELNK16.NIF" "-   ELNK16_NIF2 = ELNK16.NIF" \
		"+   ${D}_nif = ${D}.NIF" "+   ${D}_nif2 = ${D}.NIF" \
		"-   Bindings = ELNK16_NIF,ELNK16_NIF2" "+   Bindings = ${D}_nif,${D}_nif2" \
		"-[ELNK16_NIF]" "+[${D}_nif]" "-[ELNK16_NIF2]" "+[${D}_nif2]" \
		'-   DriverName = ELNK16$' "+   DriverName = ${D}\$" \
		'-   DriverName = ELNK162$' "+   DriverName = $2" \
		"-   IOADDRESS = 0x300" "-   IOADDRESS = 0x310"
	[ ! -e "$T/v/IBMCOM/PROTOCOL.INI" ] || fail "an IBMCOM\\PROTOCOL.INI was written"
	all_crlf $MPTS_PI
	wd --root "$T/v" check
	assert_rc 0
	assert_out "No problems found in CONFIG.SYS and MPTS\\PROTOCOL.INI."
	second_run_and_rollback "$T/lspci" CONFIG.SYS $MPTS_PI
}

t_mpts_folder_vendor_names_without_a_subscription() {
	volume mpts-folder-vendor-names
	mpts_folder_case E1000 'E1002$'
}

t_mpts_folder_vendor_names_with_a_subscription() {
	volume mpts-folder-vendor-names
	subscribe drivers,acpi
	mpts_folder_case MMLEM 'MMLEM2$'
}

# ---- 5. a MAC under a generic file name, AUTONIC ----

# device=c:\ibmcom\macs\auto.os2 (lower case, no NIF) and one bound MAC
# section nothing else claims: the boot model pairs them (check warns that
# it is a guess, no error); setup replaces both, every binding in its place,
# with and without a subscription; check clean, a second run changes
# nothing, rollback byte for byte, and --off on the result.
auto_case() { # DRIVER EXTRA-CONFIG-LINE...
	local D=$1
	shift
	wd --root "$T/v" --json check
	assert_rc 0
	assert_json "any(f['code'] == 'mac-no-section' and f['severity'] == 'warning' and '[IBMFE_nif] is the one bound MAC section no other driver answers to' in f['message'] for f in d['findings'])"
	one_nic
	setup_applies
	assert_out "replaces auto.os2 [IBMFE_nif]"
	expect_changes CONFIG.SYS '-device=c:\ibmcom\macs\auto.os2' "+DEVICE=C:\\IBMCOM\\MACS\\${D}.OS2" "$@"
	expect_changes $PI '-   IBMFE_nif = IBMFE.NIF' "+   ${D}_nif = ${D}.NIF" \
		'-   Bindings = IBMFE_nif' "+   Bindings = ${D}_nif" '-   Bindings = IBMFE_nif' "+   Bindings = ${D}_nif" \
		'-[IBMFE_nif]' "+[${D}_nif]" '-   DriverName = IBMFE$' "+   DriverName = ${D}\$"
	all_crlf CONFIG.SYS
	all_crlf $PI
	second_run_and_rollback "$T/lspci" CONFIG.SYS $PI
	setup_applies
}

t_auto_os2_without_a_subscription() {
	volume auto-os2-generic
	auto_case E1000
	off_nothing
}

t_auto_os2_with_a_subscription() {
	volume auto-os2-generic
	subscribe drivers,acpi
	auto_case MMLEM '+PSD=ACPI.PSD' '+BASEDEV=APM.ADD' '+RUN=C:\OS2\ACPIDAEMON.EXE'
	wd --root "$T/v" --pci "lspci:$T/lspci" configure nic --off --yes
	assert_rc 0
	grep -aq 'Bindings = E1000_nif' "$T/v/$PI" || fail "the bindings did not follow"
	check_clean
}

# Two bound sections either could be the generic load's: no pairing; setup
# refuses naming the DEVICE= line and --section, and --section says which
# (the other goes with its bindings, said in a note).
t_auto_os2_two_candidates_section_says_which() {
	volume auto-os2-generic
	python3 - "$T/v/$PI" <<'PY'
import sys
p = sys.argv[1]
b = open(p, 'rb').read()
b = b.replace(b'   DriverName = TCPIP$\r\n   Bindings = IBMFE_nif\r\n', b'   DriverName = TCPIP$\r\n   Bindings = IBMFE_nif,OLDNIC_nif\r\n')
b += b'\r\n[OLDNIC_nif]\r\n\r\n   DriverName = OLDNIC$\r\n'
open(p, 'wb').write(b)
PY
	grep -aq 'OLDNIC_nif' "$T/v/$PI" || fail "the fixture was not edited"
	rm -rf "$T/orig"
	cp -a "$T/v" "$T/orig"
	one_nic
	setup_refused "CONFIG.SYS line 25 loads auto.os2, whose DriverName no NIF on the volume gives, and [IBMFE_nif] or [OLDNIC_nif] could be its PROTOCOL.INI section: run again with --section NAME to say which; nothing was changed"
	wd --root "$T/v" --pci "lspci:$T/lspci" setup --yes --section IBMFE_nif
	assert_rc 0
	assert_out "replaces auto.os2 [IBMFE_nif]"
	assert_out "[OLDNIC_nif] answers to no driver CONFIG.SYS loads and --section chose [IBMFE_nif]: it goes, with its bindings"
	grep -aq 'Bindings = E1000_nif' "$T/v/$PI" || fail "the bindings did not follow"
	! grep -aq 'OLDNIC' "$T/v/$PI" || fail "[OLDNIC_nif] stayed"
	all_crlf CONFIG.SYS
	all_crlf $PI
	check_clean
	wd --yes --root "$T/v" rollback
	assert_rc 0
	assert_same_file "$T/orig/CONFIG.SYS" "$T/v/CONFIG.SYS"
	assert_same_file "$T/orig/$PI" "$T/v/$PI"
}

# The generic load stays (the one card keeps its E1000 line) and two
# sections either could be its: the postcondition refuses, naming the
# DEVICE= line that may answer to the section and what makes it certain;
# with and without a subscription, the volume's bytes unchanged.
t_auto_os2_refusal_names_the_device_line() {
	local sub
	for sub in "" drivers,acpi; do
		volume auto-os2-generic
		[ -z "$sub" ] || subscribe "$sub"
		python3 - "$T/v" <<'PY'
import sys
v = sys.argv[1]
c = open(v + '/CONFIG.SYS', 'rb').read()
c = c.replace(b'device=c:\\ibmcom\\macs\\auto.os2\r\n', b'DEVICE=C:\\IBMCOM\\MACS\\E1000.OS2\r\ndevice=c:\\ibmcom\\macs\\auto.os2\r\n')
open(v + '/CONFIG.SYS', 'wb').write(c)
p = v + '/IBMCOM/PROTOCOL.INI'
b = open(p, 'rb').read()
b = b.replace(b'   DriverName = TCPIP$\r\n   Bindings = IBMFE_nif\r\n', b'   DriverName = TCPIP$\r\n   Bindings = IBMFE_nif,OLDNIC_nif\r\n')
b += b'\r\n[OLDNIC_nif]\r\n\r\n   DriverName = OLDNIC$\r\n'
open(p, 'wb').write(b)
open(v + '/IBMCOM/MACS/E1000.OS2', 'w').write('E1000.OS2: a stand-in\n')
PY
		grep -aq 'OLDNIC_nif' "$T/v/$PI" || fail "the fixture was not edited"
		one_nic
		setup_refused "[netbeui_nif] would be bound to IBMFE_nif, which no driver loaded by CONFIG.SYS answers to; it is the section CONFIG.SYS line 26 (device=c:\\ibmcom\\macs\\auto.os2) may answer to, whose DriverName no NIF on the volume gives: put that driver's NIF in \\IBMCOM\\MACS to make it certain, then run again; nothing was written"
	done
}

# AUTONIC.SYS loaded: at each boot it copies \IBMCOM\AUTO\8086.100E over
# PROTOCOL.INI and AUTO.OS2. check warns (no error); setup and configure nic
# refuse saying why (exit 1), with and without a subscription, the volume's
# bytes unchanged; with the line REMmed setup goes on as above.
AUTONIC_MSG="CONFIG.SYS line 25 (device=c:\\autonic.sys) loads AUTONIC.SYS, which at each boot copies the files of the card's folder \\IBMCOM\\AUTO\\VVVV.DDDD over \\IBMCOM\\PROTOCOL.INI and \\IBMCOM\\MACS\\AUTO.OS2: what warpdrv changed there would be undone at the next boot, and warpdrv does not edit AUTONIC's folders; REM that line and run again (setup then replaces the AUTO.OS2 line with the card's own driver); nothing was changed"

autonic_case() {
	wd --root "$T/v" --json check
	assert_rc 0
	assert_json "[(f['line'], f['severity']) for f in d['findings'] if f['code'] == 'autonic'] == [(25, 'warning')]"
	assert_json "any('does not last' in f['message'] for f in d['findings'] if f['code'] == 'autonic')"
	one_nic
	setup_refused "$AUTONIC_MSG"
	local before
	before=$(snapshot "$T/v")
	wd --root "$T/v" --pci "lspci:$T/lspci" --json configure nic --yes
	assert_rc 1
	assert_json "d['error']['exit_code'] == 1 and 'loads AUTONIC.SYS' in d['error']['message']"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "refused, but the volume changed"
	# REMmed, as the message says: setup replaces the AUTO.OS2 line
	python3 - "$T/v/CONFIG.SYS" <<'PY'
import sys
p = sys.argv[1]
b = open(p, 'rb').read().replace(b'device=c:\\autonic.sys\r\n', b'REM device=c:\\autonic.sys\r\n')
open(p, 'wb').write(b)
PY
	setup_applies
	assert_out "replaces auto.os2 [IBMFE_nif]"
	check_clean
}

t_autonic_refused_without_a_subscription() {
	volume autonic
	autonic_case
}

t_autonic_refused_with_a_subscription() {
	volume autonic
	subscribe drivers,acpi
	autonic_case
}

# LAN Manager's volume and a PROTMAN in \MPTS with a stale \IBMCOM copy:
# warnings that say what was not checked, no error.
t_check_no_error_on_lan_manager_and_protman_in_mpts() {
	for v in lanman protman-in-mpts 3com-vendor-names tokenring-odi2ndi elnk16-two elnk16x-two; do
		volume $v
		wd --root "$T/v" --json check
		assert_rc 0
		assert_json "[f for f in d['findings'] if f['severity'] == 'error'] == []"
	done
}

run_tests
