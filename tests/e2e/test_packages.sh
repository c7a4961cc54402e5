#!/usr/bin/env bash
# The user's story with packages: list, info, install, verify, remove, history,
# on a small OS/2 volume made here; the bundled repository and a test key.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pkg_lib.sh"

t_list_shows_the_bundled_packages() {
	wd list
	assert_rc 0
	for p in mmlem e1000 pcntnd acpi-psd; do assert_out "$p"; done
	wd --json list
	assert_json '{p["name"]: p["entitlement"] for p in d["packages"]} == {"acpi-psd": "acpi", "e1000": None, "mmlem": "drivers", "pcntnd": None}'
}

t_info_names_devices_files_and_config() {
	wd info mmlem
	assert_rc 0
	assert_out "Entitlement: drivers"
	assert_out "8086:100e"
	assert_out '\IBMCOM\MACS\MMLEM.OS2'
	wd --json info acpi-psd
	assert_json '"PSD=ACPI.PSD" in d["packages"][0]["config_need"] and "PSD=OS2APIC.PSD" in d["packages"][0]["config_displace"] and len(d["packages"][0]["files"]) == 4'
	wd --json info e1000
	assert_json 'd["packages"][0]["devices"] == [{"pci_id": "8086:100e", "subsystem": "8086:001e", "revision": None, "rank": 2}] and d["packages"][0]["driver_name"] == "E1000$"'
}

t_install_keeps_the_os_file_and_remove_puts_it_back() {
	make_volume "$T/v"
	cp "$T/v/IBMCOM/MACS/E1000.OS2" "$T/orig"
	wd --root "$T/v" install e1000
	assert_rc 0
	assert_out "Installed e1000 4.02"
	grep -q "STAND-IN" "$T/v/IBMCOM/MACS/E1000.OS2" || fail "E1000.OS2 not replaced"
	assert_same_file "$SRC/drivers/e1000/E1000.NIF" "$T/v/IBMCOM/MACS/E1000.NIF"
	wd --root "$T/v" --json list --installed
	assert_json '[p["name"] for p in d["packages"]] == ["e1000"]'
	wd --root "$T/v" verify
	assert_rc 0
	assert_out "2 installed files checked"
	wd --yes --root "$T/v" remove e1000
	assert_rc 0
	assert_same_file "$T/orig" "$T/v/IBMCOM/MACS/E1000.OS2"
	[ ! -e "$T/v/IBMCOM/MACS/E1000.NIF" ] || fail "E1000.NIF left behind"
	wd --root "$T/v" --json history
	assert_json '[(h["action"], h["package"]) for h in d["history"]] == [("install", "e1000"), ("remove", "e1000")]'
}

t_install_from_file_creates_folders_and_remove_restores() {
	make_good_package
	make_volume "$T/v"
	before=$(snapshot "$T/v" var)
	wd --root "$T/v" --keys "$T/k" install "$T/good.wdp"
	assert_rc 0
	assert_same_file "$T/recipe/NEW.ADD" "$T/v/OS2/BOOT/NEW.ADD"
	assert_same_file "$T/recipe/KEEP.SYS" "$T/v/OS2/KEEP.SYS"
	wd --root "$T/v" --keys "$T/k" install "$T/good.wdp"
	assert_rc 0
	assert_out "already installed"
	wd --yes --root "$T/v" remove testpkg
	assert_rc 0
	rmdir "$T/v/OS2/BOOT" # folders a package made stay (they may hold other files)
	[ "$(snapshot "$T/v" var)" = "$before" ] || fail "volume not back to where it was"
}

t_verify_finds_a_changed_file() {
	make_volume "$T/v"
	wd --root "$T/v" install pcntnd
	assert_rc 0
	sed -i 's/NDIS/ndis/' "$T/v/IBMCOM/MACS/PCNTND.NIF" # same size, other bytes
	wd --root "$T/v" verify pcntnd
	assert_rc 3
	assert_err '\IBMCOM\MACS\PCNTND.NIF: content differs'
	wd --root "$T/v" --json verify
	assert_rc 3
	assert_json 'd["problems"][0]["message"] == "content differs" and d["checked_count"] == 2'
}

t_entitled_package_is_refused_without_a_subscription() {
	make_volume "$T/v"
	before=$(snapshot "$T/v")
	wd --root "$T/v" install mmlem
	assert_rc 4
	assert_err "mmlem 2.06: needs the 'drivers' entitlement (released 2023-05-01): no subscription is activated"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "volume changed"
}

t_dry_run_prints_the_plan_and_writes_nothing() {
	make_volume "$T/v"
	before=$(snapshot "$T/v")
	wd --root "$T/v" --dry-run install e1000 pcntnd
	assert_rc 0
	assert_out "replace (original kept)  \\IBMCOM\\MACS\\E1000.OS2"
	assert_out "add                      \\IBMCOM\\MACS\\PCNTND.OS2"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "dry run changed the volume"
	wd --root "$T/v" install e1000
	before=$(snapshot "$T/v")
	wd --root "$T/v" -n remove e1000
	assert_rc 0
	assert_out "put back the original"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "dry run changed the volume"
}

t_two_packages_cannot_own_one_file() {
	make_good_package
	make_volume "$T/v"
	make_recipe "$T/r2"
	sed -i 's/^name testpkg/name other/' "$T/r2/MANIFEST"
	wda pack "$T/r2" --key "$T/k/repo/test.key" --out "$T/other.wdp"
	wd --root "$T/v" --keys "$T/k" install "$T/good.wdp"
	assert_rc 0
	before=$(snapshot "$T/v")
	wd --root "$T/v" --keys "$T/k" install "$T/other.wdp"
	assert_rc 1
	assert_err '\IBMCOM\MACS\TEST.OS2 belongs to the installed package testpkg'
	[ "$(snapshot "$T/v")" = "$before" ] || fail "volume changed"
	# unless one replaces the other
	echo "replaces testpkg" >>"$T/r2/MANIFEST"
	wda pack "$T/r2" --key "$T/k/repo/test.key" --out "$T/other.wdp"
	wd --root "$T/v" --keys "$T/k" install "$T/other.wdp"
	assert_rc 0
	assert_out "Removed testpkg 1.0 (replaced by other)"
	wd --root "$T/v" --json list --installed
	assert_json '[p["name"] for p in d["packages"]] == ["other"]'
}

t_second_warpdrv_waits_then_names_the_holder() {
	make_volume "$T/v"
	mkdir -p "$T/v/var/lib/warpdrv"
	python3 -c '
import fcntl, os, sys, time
f = open(sys.argv[1], "w")
fcntl.lockf(f, fcntl.LOCK_EX)
f.write("warpdrv install held-by-the-test\n"); f.flush()
open(sys.argv[2], "w").close()
time.sleep(30)' "$T/v/var/lib/warpdrv/lock" "$T/ready" &
	holder=$!
	while [ ! -e "$T/ready" ]; do sleep 0.05; done
	start=$(date +%s%N)
	WARPDRV_LOCK_WAIT=1 wd --root "$T/v" install e1000
	took=$((($(date +%s%N) - start) / 1000000))
	kill "$holder"
	wait "$holder" 2>/dev/null || true
	assert_rc 1
	# named from the process table (its command line), not the file's text
	assert_err "the volume is busy: process $holder ("
	assert_err "import fcntl, os, sys, time f = open(sys.argv[1], \"w\")"
	! grep -q "held-by-the-test)" "$T/err" || fail "named by the lock file's text: $ERR"
	[ "$took" -ge 900 ] || fail "did not wait ($took ms)"
	# the holder is gone: its lock went with it
	wd --root "$T/v" install e1000
	assert_rc 0
}

t_read_only_commands_write_nothing() {
	make_volume "$T/v"
	before=$(snapshot "$T/v")
	wd --root "$T/v" list --installed
	assert_rc 0
	wd --root "$T/v" verify
	assert_rc 0
	wd --root "$T/v" history
	assert_rc 0
	wd --root "$T/v" list
	assert_rc 0
	[ "$(snapshot "$T/v")" = "$before" ] || fail "a read-only command wrote to the volume"
}

# remove on a volume where nothing was ever installed says so first, before
# CONFIG.SYS is read (here one too large to read), and changes nothing.
t_remove_on_a_volume_without_a_database_says_not_installed() {
	make_volume "$T/v"
	head -c 5000000 /dev/zero | tr '\0' 'R' >>"$T/v/CONFIG.SYS"
	before=$(snapshot "$T/v")
	for dry in "" --dry-run; do
		wd --root "$T/v" --yes $dry remove testpkg
		assert_rc 1
		assert_err "testpkg is not installed (nothing is installed on $T/v)"
	done
	[ "$(snapshot "$T/v")" = "$before" ] || fail "remove wrote to the volume"
}

t_pack_refuses_unsafe_recipes() {
	make_key
	for dest in '\..\CONFIG.SYS' 'C:\OS2\X.SYS' '\OS2\..\..\X' 'OS2\X.SYS' '\OS2/../X'; do
		make_recipe "$T/r"
		sed -i "s|^file TEST.OS2 .*|file TEST.OS2 $dest|" "$T/r/MANIFEST"
		wda pack "$T/r" --key "$T/k/repo/test.key" --out "$T/x.wdp"
		assert_rc 3
		assert_err "unsafe destination"
		[ ! -e "$T/x.wdp" ] || fail "wrote a package for $dest"
	done
	make_recipe "$T/r"
	sed -i 's|^file TEST.OS2 |file ../TEST.OS2 |' "$T/r/MANIFEST"
	wda pack "$T/r" --key "$T/k/repo/test.key" --out "$T/x.wdp"
	assert_rc 3
	assert_err "unsafe file name '../TEST.OS2'"
}

t_admin_verify_and_index_round_trip() {
	make_good_package
	wda verify "$T/good.wdp" --keys "$T/k"
	assert_rc 0
	assert_out "good package testpkg 1.0"
	mkdir "$T/repo"
	cp "$T/good.wdp" "$T/repo/"
	wda index "$T/repo" --key "$T/k/repo/test.key" --revoke CUST-0001 --revoke CUST-0002
	assert_rc 0
	wda verify "$T/repo/INDEX" --keys "$T/k"
	assert_rc 0
	assert_out "good index, serial 1, 1 package"
	wda index "$T/repo" --key "$T/k/repo/test.key"
	assert_out "serial 2"
	grep -q '^revoke CUST-0001$' "$T/repo/INDEX" && fail "revocations are per run" || true
	wda index "$T/repo" --key "$T/k/repo/test.key" --revoke CUST-0001
	grep -q '^revoke CUST-0001$' "$T/repo/INDEX" || fail "no revoke line"
	make_volume "$T/v"
	wd --root "$T/v" --keys "$T/k" --repo "$T/repo" install testpkg
	assert_rc 0
	sqlite3 "$T/v/var/lib/warpdrv/warpdrv.db" "SELECT key_id FROM revoked_keys" >"$T/revoked"
	grep -qx CUST-0001 "$T/revoked" || fail "revoked key id not kept in the catalog"
}

run_tests
