#!/usr/bin/env bash
# Limits a hostile volume cannot move (docs/config-files.md, "Limits"): the
# NIFs of IBMCOM\MACS are read one at a time, so check runs in the same
# memory however many large ones the folder holds; a NIF with a name no
# driver has is reported, not kept; a warning names a bounded number of
# sections; CONFIG.SYS and PROTOCOL.INI at the 4 MiB warpdrv reads give the
# same findings and plan as small ones would. The volume is never written.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/setup_lib.sh"

# The address space check is given over a folder of large NIFs
# (docs/config-files.md: 80 MiB, whatever IBMCOM\MACS holds; about 58 of
# them the program and its linked libraries, mapped at start).
CHECK_CEILING_KIB=81920

under_limit() { # KIB PROGRAM ARGS...: run with `ulimit -v KIB`
	local kib=$1
	shift
	run bash -c 'ulimit -v "$0" && exec "$@"' "$kib" "$@"
}

no_asan() {
	! grep -qa __asan_init "$WD" || skip "AddressSanitizer cannot run under ulimit -v"
}

# big_nif FILE: a NIF of 4 000 000 bytes (under the 4 MiB cap): a driver
# section, [FILE], then comment lines.
big_nif() {
	{
		printf '[BIG]\r\nType = NDIS\r\nTitle = "A large NIF"\r\nDriverName = BIG$\r\n\r\n'
		printf '[FILE]\r\nName = BIG.OS2\r\nPath = IBMCOM\\MACS\r\n\r\n'
		head -c 3800000 /dev/zero | tr '\0' 'x' | fold -w 62 | sed 's/^/; /;s/$/\r/'
	} >"$1"
	truncate -s 4000000 "$1"
}

# 60 NIFs of 4 MB (one file under 60 names: the same bytes read 60 times)
# in 80 MiB of address space: the 240 MB are never in memory together.
t_many_large_nifs_under_the_memory_ceiling() {
	no_asan
	volume ecs21-e1000
	wd --root "$T/v" check
	assert_rc 0
	local alone=$OUT
	big_nif "$T/v/IBMCOM/MACS/BIG00.NIF"
	for i in $(seq 1 59); do ln "$T/v/IBMCOM/MACS/BIG00.NIF" "$T/v/IBMCOM/MACS/BIG$(printf %02d "$i").NIF"; done
	[ "$(stat -c %s "$T/v/IBMCOM/MACS/BIG00.NIF")" -eq 4000000 ] || fail "the NIF is not 4 MB"
	local before
	before=$(snapshot "$T/v")
	under_limit "$CHECK_CEILING_KIB" "$WD" --root "$T/v" check
	assert_rc 0
	[ "$OUT" = "$alone" ] || fail "the NIFs changed the findings: $OUT"
	assert_out "No problems found"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "check changed the volume"
	# Their DriverName is known: a section with it counts as a MAC's.
	printf '[BIG_nif]\r\n\r\n   DriverName = BIG$\r\n' >>"$T/v/IBMCOM/PROTOCOL.INI"
	under_limit "$CHECK_CEILING_KIB" "$WD" --root "$T/v" check
	assert_rc 1
	assert_out "[BIG_nif] is for the MAC driver BIG\$, which no DEVICE= line in CONFIG.SYS loads"
}

# A DriverName of 300 bytes is no driver's: the NIF is reported and judged
# by its file name, as an unreadable one is; nothing of it is kept.
t_nif_with_a_name_too_long() {
	volume ecs21-e1000
	local dn
	dn=$(head -c 300 /dev/zero | tr '\0' D)
	printf '[LONG]\r\nDriverName = %s$\r\n\r\n[FILE]\r\nName = LONG.OS2\r\n' "$dn" \
		>"$T/v/IBMCOM/MACS/LONG.NIF"
	local before
	before=$(snapshot "$T/v")
	wd --root "$T/v" check
	assert_rc 0
	assert_out "IBMCOM\\MACS\\LONG.NIF: warning: a name in it (section, DriverName or [FILE] Name) is longer than 255 bytes; the driver it describes is judged by its file name instead [nif-unreadable]"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "check changed the volume"
	# 255 bytes is still a name.
	dn=$(head -c 254 /dev/zero | tr '\0' D)
	printf '[LONG]\r\nDriverName = %s$\r\n\r\n[FILE]\r\nName = LONG.OS2\r\n' "$dn" \
		>"$T/v/IBMCOM/MACS/LONG.NIF"
	wd --root "$T/v" check
	assert_rc 0
	assert_no_out "nif-unreadable"
}

# A MAC whose DriverName is a guess, and 20 sections it could answer to:
# the warning names the first 16 in file order and counts the others.
t_candidates_named_are_bounded() {
	volume ecs21-e1000
	sed -i 's/^DEVICE=C:\\IBMCOM\\MACS\\E1000.OS2/DEVICE=C:\\IBMCOM\\MACS\\FOO.OS2/' "$T/v/CONFIG.SYS"
	cp "$T/v/IBMCOM/MACS/E1000.OS2" "$T/v/IBMCOM/MACS/FOO.OS2"
	local b="" i
	for i in $(seq 1 20); do b="$b${b:+,}A${i}_nif"; done
	sed -i "s/Bindings = E1000_nif/Bindings = $b/" "$T/v/IBMCOM/PROTOCOL.INI"
	for i in $(seq 1 20); do printf '\r\n[A%d_nif]\r\n\r\n   DriverName = A%d$\r\n' "$i" "$i"; done \
		>>"$T/v/IBMCOM/PROTOCOL.INI"
	local before names=""
	before=$(snapshot "$T/v")
	wd --root "$T/v" check
	for i in $(seq 1 16); do names="$names${names:+, }[A${i}_nif]"; done
	assert_out "no section has DriverName = FOO\$, the usual name; it may answer to $names and 4 more: put the driver's NIF"
	assert_out "[mac-no-section]"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "check changed the volume"
}

# grow FILE KIND BYTES: ordinary lines appended until FILE has BYTES.
grow() {
	local have
	have=$(wc -c <"$1")
	awk -v max=$(($3 - have)) -v kind="$2" 'BEGIN {
		n = 0
		for (i = 1; ; i++) {
			if (kind == "cs") {
				k = i % 4
				if (k == 0) l = "REM [ block " i " ]"
				else if (k == 1) l = "SET VAR" i "=C:\\APPS;C:\\OS2"
				else if (k == 2) l = "DEVICE=C:\\APPS\\DRV" i ".SYS /Q"
				else l = "BASEDEV=OS2DASD.DMD"
				l = l "\r\n"
			} else {
				l = "[SEC" i "_nif]\r\n\r\n   DriverName = SEC" i "$\r\n"
				if (i % 2) l = l "   Bindings = E1000_nif\r\n"
				l = l "\r\n"
			}
			if (n + length(l) > max) break
			printf "%s", l
			n += length(l)
		}
	}' >>"$1"
}

# CONFIG.SYS and PROTOCOL.INI near the 4 MiB warpdrv reads: check finds each
# missing file once, and setup's plan rebinds every protocol section.
t_files_at_the_size_cap() {
	volume ecs21-e1000
	local cap=$(((4 << 20) - (64 << 10)))
	grow "$T/v/CONFIG.SYS" cs "$cap"
	grow "$T/v/IBMCOM/PROTOCOL.INI" pi "$cap"
	local missing bound
	missing=$(grep -c '^DEVICE=C:\\APPS\\DRV' "$T/v/CONFIG.SYS")
	bound=$(grep -c 'Bindings = E1000_nif' "$T/v/IBMCOM/PROTOCOL.INI")
	subscribe drivers,acpi
	local before
	before=$(snapshot "$T/v" var)
	wd --root "$T/v" check
	assert_rc 1
	[ "$(grep -c '\[file-missing\]$' "$T/out")" -eq "$missing" ] || fail "not $missing file-missing findings"
	assert_out "$missing errors, 0 warnings."
	wd --root "$T/v" --pci "lspci:$FIX/pci/ecs-guest.lspci-nn" --dry-run setup
	assert_rc 0
	assert_out "replaces E1000.OS2 [E1000_nif]"
	# Past 2000 differing lines the diff shows the whole old and new file.
	[ "$(grep -c '^+   Bindings = MMLEM_nif' "$T/out")" -eq "$bound" ] || fail "not $bound rebound sections"
	[ "$(snapshot "$T/v" var)" = "$before" ] || fail "--dry-run changed the volume"
}

# The same volume within the ceilings docs/config-files.md gives for files
# at the cap: check in 128 MiB of address space, setup in 256 MiB.
t_files_at_the_size_cap_in_bounded_memory() {
	no_asan
	volume ecs21-e1000
	local cap=$(((4 << 20) - (64 << 10)))
	grow "$T/v/CONFIG.SYS" cs "$cap"
	grow "$T/v/IBMCOM/PROTOCOL.INI" pi "$cap"
	subscribe drivers,acpi
	local before
	before=$(snapshot "$T/v" var)
	under_limit 147456 "$WD" --root "$T/v" check
	assert_rc 1
	assert_out "errors, 0 warnings."
	under_limit 262144 "$WD" --root "$T/v" --pci "lspci:$FIX/pci/ecs-guest.lspci-nn" --dry-run setup
	assert_rc 0
	assert_out "replaces E1000.OS2 [E1000_nif]"
	[ "$(snapshot "$T/v" var)" = "$before" ] || fail "--dry-run changed the volume"
}

# A driver loaded 400 times, each instance with its section, for one adapter:
# the 399 lines left over go with their sections, in one pass, and the
# result checks clean of them.
t_leftover_instances_go_together() {
	volume ecs21-e1000
	local n=400 i
	{
		sed '/E1000.OS2/q' "$FIX/volumes/ecs21-e1000/CONFIG.SYS"
		for i in $(seq 2 $n); do printf 'DEVICE=C:\\IBMCOM\\MACS\\E1000.OS2\r\n'; done
		sed '1,/E1000.OS2/d' "$FIX/volumes/ecs21-e1000/CONFIG.SYS"
	} >"$T/v/CONFIG.SYS"
	for i in $(seq 2 $n); do
		printf '\r\n[E1000_nif%d]\r\n\r\n   DriverName = E100%d$\r\n' "$i" "$i"
	done >>"$T/v/IBMCOM/PROTOCOL.INI"
	subscribe drivers,acpi
	wd --root "$T/v" --pci "lspci:$FIX/pci/ecs-guest.lspci-nn" --yes setup
	assert_rc 0
	[ "$(grep -c 'loads E1000.OS2 once more than there are adapters for it: it goes' "$T/out")" -eq $((n - 1)) ] ||
		fail "not $((n - 1)) leftover notes"
	! grep -q 'E1000' "$T/v/CONFIG.SYS" || fail "an E1000.OS2 line is left"
	! grep -qi '^\[E1000_nif' "$T/v/IBMCOM/PROTOCOL.INI" || fail "an E1000 section is left"
	grep -q '^\[MMLEM_nif\]' "$T/v/IBMCOM/PROTOCOL.INI" || fail "no [MMLEM_nif]"
	wd --root "$T/v" check
	assert_no_out "[section-no-driver]"
	assert_no_out "[mac-no-section]"
}

# A CONFIG.SYS a few bytes under the cap: the lines setup adds would take
# it past what warpdrv reads (no later check or rollback could read it):
# refused, nothing written.
t_setup_refuses_to_grow_a_file_past_the_cap() {
	volume ecs21-e1000
	grow "$T/v/CONFIG.SYS" cs $(((4 << 20) - 8))
	subscribe drivers,acpi
	local before
	before=$(snapshot "$T/v")
	wd --root "$T/v" --pci "lspci:$FIX/pci/ecs-guest.lspci-nn" --yes setup
	assert_rc 1
	assert_err "the plan fails its check: CONFIG.SYS would be"
	assert_err "bytes, more than the 4194304 warpdrv reads, so no later run could check it or roll it back"
	assert_err "nothing was written"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the volume changed"
}

run_tests
