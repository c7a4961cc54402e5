#!/usr/bin/env bash
# The core paths (setup, rollback, upgrade, a crash at every step and its
# recovery) on the project's own composed guest, tests/fixtures/volumes/
# warp4-mpts-e1000 (a Warp 4 guest with MPTS on the E1000, written from
# docs/os2-facts.md), with the project's own PCI listing: nothing here needs a
# folder of real samples, but the last case, which reads a real listing
# where one is given (WARPDRV_SAMPLES).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pkg_lib.sh"
. "$(dirname "$0")/setup_lib.sh"

PCI="lspci:$FIX/pci/vbox-82540em.lspci-n"
GUEST=warp4-mpts-e1000

# The lines setup changes on the guest for the NIC: E1000 to MMLEM, both
# protocols bound to it as before.
expect_nic_changes() {
	expect_changes IBMCOM/PROTOCOL.INI \
		'-   E1000_nif = E1000.NIF' '+   MMLEM_nif = MMLEM.NIF' \
		'-   Bindings = E1000_nif' '-   Bindings = E1000_nif' \
		'+   Bindings = MMLEM_nif' '+   Bindings = MMLEM_nif' \
		'-[E1000_nif]' '+[MMLEM_nif]' '-   DriverName = E1000$' '+   DriverName = MMLEM$'
	all_crlf CONFIG.SYS
	all_crlf IBMCOM/PROTOCOL.INI
}

t_setup_configures_mmlem_and_rollback_restores() {
	volume $GUEST
	subscribe drivers
	wd --root "$T/v" --pci "$PCI" setup --yes
	assert_rc 0
	assert_out "generation 1"
	expect_changes CONFIG.SYS '-DEVICE=C:\IBMCOM\MACS\E1000.OS2' '+DEVICE=C:\IBMCOM\MACS\MMLEM.OS2'
	expect_nic_changes
	grep -q "MMLEM.OS2 of the mmlem package" "$T/v/IBMCOM/MACS/MMLEM.OS2" || fail "MMLEM.OS2 not installed"
	[ -f "$T/v/IBMCOM/MACS/MMLEM.NIF" ] || fail "MMLEM.NIF not installed"
	second_run_and_rollback "$FIX/pci/vbox-82540em.lspci-n" CONFIG.SYS IBMCOM/PROTOCOL.INI
	wd --root "$T/v" --json history
	assert_json "[(g['generation'], g['command']) for g in d['generations']] == [(1, 'setup'), (2, 'rollback 1')]"
}

t_without_a_subscription_the_e1000_stays() {
	volume $GUEST
	before=$(snapshot "$T/v")
	wd --root "$T/v" --pci "$PCI" setup --yes
	assert_rc 0
	assert_out "MMLEM needs a subscription with drivers; using E1000"
	assert_out "Nothing to do"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the volume changed"
}

t_nic_and_acpi_in_one_generation() {
	volume $GUEST
	subscribe drivers,acpi
	wd --root "$T/v" --pci "$PCI" setup --yes
	assert_rc 0
	expect_changes CONFIG.SYS '-DEVICE=C:\IBMCOM\MACS\E1000.OS2' '+DEVICE=C:\IBMCOM\MACS\MMLEM.OS2' \
		'+PSD=ACPI.PSD' '+BASEDEV=APM.ADD' '+RUN=C:\OS2\ACPIDAEMON.EXE'
	expect_nic_changes
	[ -f "$T/v/OS2/BOOT/ACPI.PSD" ] && [ -f "$T/v/OS2/BOOT/APM.ADD" ] || fail "ACPI files not installed"
	second_run_and_rollback "$FIX/pci/vbox-82540em.lspci-n" CONFIG.SYS IBMCOM/PROTOCOL.INI
}

# mmlem VERSION, its driver renamed to STEM, in the folder repository $T/www/NAME.
mmlem_repo() { # NAME VERSION STEM
	local d="$T/mmlem-$2" stem=$3
	mkdir -p "$T/www/$1"
	cp -R "$SRC/drivers/mmlem" "$d"
	sed -i -e "s/^version .*/version $2/" -e 's/^released .*/released 2026-06-01/' \
		-e "s/MMLEM/$stem/g" "$d/MANIFEST"
	printf 'MMLEM %s stand-in driver\n' "$2" >"$d/$stem.OS2"
	sed "s/MMLEM/$stem/g" "$SRC/drivers/mmlem/MMLEM.NIF" >"$d/$stem.NIF.new"
	rm -f "$d/MMLEM.NIF" "$d/MMLEM.OS2"
	mv "$d/$stem.NIF.new" "$d/$stem.NIF"
	wda pack "$d" --key "$T/k/repo/test.key" --out "$T/www/$1/"
	assert_rc 0
	wda index "$T/www/$1" --key "$T/k/repo/test.key"
	assert_rc 0
}

# An upgrade whose new version renames the driver rewrites the DEVICE= line
# and the PROTOCOL.INI section in one generation; rollback gives back the
# files setup wrote.
t_an_upgrade_rewrites_both_files_and_rollback_restores() {
	make_key
	volume $GUEST
	subscribe drivers
	wd --root "$T/v" --pci "$PCI" setup --yes
	assert_rc 0
	cp "$T/v/CONFIG.SYS" "$T/cs.setup"
	cp "$T/v/IBMCOM/PROTOCOL.INI" "$T/pi.setup"
	mmlem_repo r208 2.08 MMLEMX
	wd --root "$T/v" --keys "$T/k" --repo "$T/www/r208" upgrade --yes
	assert_rc 0
	assert_out "Upgraded mmlem to 2.08"
	tail -n 1 "$T/v/var/log/warpdrv.log" | grep -qE '^[0-9T:Z-]+ upgrade \| mmlem 2\.06 -> 2\.08 \| (-|generation [0-9]+) \| done'$'\r''$' ||
		fail "the text log's line: $(tail -n 1 "$T/v/var/log/warpdrv.log")"
	grep -q 'DEVICE=C:\\IBMCOM\\MACS\\MMLEMX.OS2'$'\r''$' "$T/v/CONFIG.SYS" ||
		fail "CONFIG.SYS does not load MMLEMX.OS2 with CR LF"
	grep -q '^\[MMLEMX_nif\]'$'\r' "$T/v/IBMCOM/PROTOCOL.INI" || fail "the section is not MMLEMX_nif"
	[ "$(grep -c 'Bindings = MMLEMX_nif' "$T/v/IBMCOM/PROTOCOL.INI")" = 2 ] ||
		fail "the two protocols are not bound to MMLEMX_nif"
	[ -e "$T/v/IBMCOM/MACS/MMLEMX.OS2" ] && [ ! -e "$T/v/IBMCOM/MACS/MMLEM.OS2" ] ||
		fail "the driver files were not swapped"
	all_crlf CONFIG.SYS
	all_crlf IBMCOM/PROTOCOL.INI
	check_clean
	WITH_VERSIONS=1 installed "$T/v" >"$T/pkgs"
	[ "$(cat "$T/pkgs")" = "mmlem=2.08" ] || fail "installed: $(cat "$T/pkgs")"
	wd --yes --root "$T/v" rollback
	assert_rc 0
	assert_same_file "$T/v/CONFIG.SYS" "$T/cs.setup"
	assert_same_file "$T/v/IBMCOM/PROTOCOL.INI" "$T/pi.setup"
}

# Setup stopped (kill -9) before each durable step in turn: the next run
# (recover) leaves both files of one side, old or new, byte for byte, and
# nothing pending; check finds no error either way.
t_setup_survives_a_crash_at_every_step() {
	volume $GUEST
	subscribe drivers
	cp -a "$T/v" "$T/base"
	cp -a "$T/v" "$T/ref"
	wd --root "$T/ref" --pci "$PCI" setup --yes
	assert_rc 0
	local n=1 old=0 new=0
	while [ $n -lt 200 ]; do
		rm -rf "$T/v"
		cp -a "$T/base" "$T/v"
		WARPDRV_CRASH_AT=$n wd --root "$T/v" --pci "$PCI" setup --yes
		[ "$RC" -eq 0 ] && break
		[ "$RC" -eq 99 ] || fail "step $n: exit $RC: $ERR"
		wd --root "$T/v" recover
		assert_rc 0
		[ "$(pending "$T/v")" = 0 ] || fail "step $n: a transaction is still pending"
		if cmp -s "$T/v/CONFIG.SYS" "$T/base/CONFIG.SYS"; then
			assert_same_file "$T/v/IBMCOM/PROTOCOL.INI" "$T/base/IBMCOM/PROTOCOL.INI"
			[ -z "$(installed "$T/v")" ] || fail "step $n: undone, but a package is installed"
			old=$((old + 1))
		else
			assert_same_file "$T/v/CONFIG.SYS" "$T/ref/CONFIG.SYS"
			assert_same_file "$T/v/IBMCOM/PROTOCOL.INI" "$T/ref/IBMCOM/PROTOCOL.INI"
			[ "$(installed "$T/v")" = mmlem ] || fail "step $n: finished, but mmlem is not installed"
			new=$((new + 1))
		fi
		check_clean
		n=$((n + 1))
	done
	[ "$RC" -eq 0 ] || fail "setup never ran to its end"
	[ $old -gt 3 ] || fail "only $old crashes were undone"
}

# The extra case of a real file: a VirtualBox guest's own `lspci -n` output
# (where a samples folder is given) configures the composed guest the same way.
t_a_real_lspci_listing_configures_the_guest() {
	need_samples
	volume $GUEST
	subscribe drivers
	wd --root "$T/v" --pci "lspci:$SAMPLES/lspci/book-zh_lspci-n.txt" setup --yes
	assert_rc 0
	expect_changes CONFIG.SYS '-DEVICE=C:\IBMCOM\MACS\E1000.OS2' '+DEVICE=C:\IBMCOM\MACS\MMLEM.OS2'
	expect_nic_changes
	check_clean
}

run_tests
