#!/usr/bin/env bash
# A package cannot take away what the guest needs to boot: a package signed
# by a key the user trusts (--keys) that displaces, removes or rewrites the
# disk driver, the adapter's .ADD, the JFS or HPFS IFS= line, PROTMAN or
# NETBIND is refused with exit 3 by install, setup, configure acpi and
# upgrade, its message naming the package, the CONFIG.SYS line and why, and
# neither the volume nor a folder beside it changes. check reports a
# CONFIG.SYS without a disk driver or without the boot IFS as an error.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pkg_lib.sh"
. "$(dirname "$0")/setup_lib.sh"

# $T/root/v: a copy of the eComStation fixture (every class of statement
# there); $T/root/sentinel beside it.
guest() {
	mkdir -p "$T/root/sentinel"
	printf 'beside the volume\n' >"$T/root/sentinel/KEEP"
	cp -a "$FIX/volumes/ecs21-e1000" "$T/root/v"
	V="$T/root/v"
}

# The line number in the fixture's CONFIG.SYS of the first line matching
# the regular expression (so the test follows the fixture, not a number).
line_of() { # REGEX
	local n
	n=$(tr -d '\r' <"$FIX/volumes/ecs21-e1000/CONFIG.SYS" | grep -n -m1 -E "$1" | cut -d: -f1)
	[ -n "$n" ] || fail "the fixture has no line matching $1"
	echo "$n"
}
text_of() { # LINE
	tr -d '\r' <"$FIX/volumes/ecs21-e1000/CONFIG.SYS" | sed -n "$1p"
}

# A psd package NAME VERSION in $T/NAME-VERSION.wdp signed by the test key,
# with a harmless file and statement and the manifest lines given.
evil_package() { # NAME VERSION MANIFEST-LINE...
	local name=$1 version=$2 d="$T/recipe-$1-$2"
	shift 2
	[ -e "$T/k/repo/test.key" ] || make_key
	mkdir -p "$d"
	{
		printf 'format 1\nname %s\nversion %s\nreleased 2024-01-01\n' "$name" "$version"
		printf 'summary a package that asks for too much\nkind psd\n'
		printf 'file EVIL.EXE \\OS2\\EVIL.EXE\nconfig-need RUN \\OS2\\EVIL.EXE\n'
		printf '%s\n' "$@"
	} >"$d/MANIFEST"
	printf 'evil\n' >"$d/EVIL.EXE"
	wda pack "$d" --key "$T/k/repo/test.key" --out "$T/$name-$version.wdp"
	assert_rc 0
}

# $T/repo holding the packages given, indexed with the test key.
repo_of() { # WDP...
	rm -rf "$T/repo"
	mkdir -p "$T/repo"
	cp "$@" "$T/repo/"
	wda index "$T/repo" --key "$T/k/repo/test.key"
	assert_rc 0
}

# The last command was refused with exit 3 naming the package, the line and
# the statement, and the volume and the sentinel kept every byte.
refused_here() { # WHO LINE
	assert_rc 3
	assert_err "$1"
	assert_err "CONFIG.SYS line $2, '$(text_of "$2")'"
	assert_err "no package may take away a statement the guest needs to boot"
	assert_err "nothing was written"
	[ "$(snapshot "$V")" = "$vol_before" ] || fail "the volume changed"
	[ "$(snapshot "$T/root/sentinel")" = "$sentinel_before" ] || fail "the sentinel changed"
}

# Each class displaced: install, configure acpi (also --dry-run) and setup
# refuse it.
displaced_refused() { # KEYWORD FILE REGEX WHAT
	guest
	evil_package evil-psd 1.0 "config-displace $1 $2"
	repo_of "$T/evil-psd-1.0.wdp"
	listing "00:03.0 8086:100e 02"
	local n
	n=$(line_of "$3")
	vol_before=$(snapshot "$V")
	sentinel_before=$(snapshot "$T/root/sentinel")
	wd --root "$V" --keys "$T/k" install "$T/evil-psd-1.0.wdp"
	refused_here "evil-psd 1.0: its manifest says 'config-displace $1 $2'" "$n"
	assert_err "$4"
	wd --root "$V" --keys "$T/k" --repo "$T/repo" configure acpi --yes
	refused_here "evil-psd 1.0: its manifest says 'config-displace $1 $2'" "$n"
	wd --root "$V" --keys "$T/k" --repo "$T/repo" --dry-run configure acpi
	refused_here "evil-psd 1.0" "$n"
	wd --root "$V" --keys "$T/k" --repo "$T/repo" --pci "lspci:$T/lspci" setup --yes
	refused_here "evil-psd 1.0" "$n"
	assert_no_out "Done"
	wd --root "$V" check
	assert_rc 0
}

t_disk_manager_displaced() { displaced_refused BASEDEV OS2DASD.DMD '^BASEDEV=OS2DASD\.DMD' "disk device manager"; }
t_adapter_add_displaced() { displaced_refused BASEDEV DANIS506.ADD '^BASEDEV=DANIS506\.ADD' "adapter driver"; }
t_floppy_add_displaced() { displaced_refused BASEDEV ibm1flpy.add '^BASEDEV=IBM1FLPY\.ADD' "adapter driver"; }
t_jfs_displaced() { displaced_refused IFS JFS.IFS '^IFS=.*\\JFS\.IFS' "JFS file system driver"; }
t_hpfs_displaced() { displaced_refused IFS '\OS2\HPFS.IFS' '^IFS=.*\\HPFS\.IFS' "HPFS file system driver"; }
t_protman_displaced() { displaced_refused DEVICE PROTMAN.OS2 '^DEVICE=.*\\PROTMAN\.OS2' "protocol manager"; }
t_netbind_displaced() { displaced_refused CALL NETBIND.EXE '^CALL=.*\\NETBIND\.EXE' "NETBIND"; }

# A displaced statement the volume does not have is refused all the same:
# the package asks for what no package may do.
t_displacing_an_absent_statement_is_refused() {
	guest
	evil_package evil-psd 1.0 "config-displace RUN NETBIND.EXE"
	vol_before=$(snapshot "$V")
	wd --root "$V" --keys "$T/k" install "$T/evil-psd-1.0.wdp"
	assert_rc 3
	assert_err "evil-psd 1.0: its manifest says 'config-displace RUN NETBIND.EXE', which would remove any RUN=NETBIND.EXE line (CONFIG.SYS has none now)"
	[ "$(snapshot "$V")" = "$vol_before" ] || fail "the volume changed"
}

# A statement a package needs may not rewrite a boot-critical line either:
# the guard over the planner's edits refuses it (here config-need moves the
# line to the package's folder).
rewrite_refused() { # KEYWORD VALUE REGEX
	guest
	evil_package evil-psd 1.0 "config-need $1 $2"
	repo_of "$T/evil-psd-1.0.wdp"
	local n
	n=$(line_of "$3")
	vol_before=$(snapshot "$V")
	sentinel_before=$(snapshot "$T/root/sentinel")
	wd --root "$V" --keys "$T/k" --repo "$T/repo" configure acpi --yes
	refused_here "evil-psd 1.0 would remove or rewrite CONFIG.SYS line $n" "$n"
}
t_jfs_line_rewritten() { rewrite_refused IFS '\OS2\BOOT\JFS.IFS' '^IFS=.*\\JFS\.IFS'; }
t_protman_line_rewritten() { rewrite_refused DEVICE '\IBMCOM\NEW\PROTMAN.OS2' '^DEVICE=.*\\PROTMAN\.OS2'; }

# An upgrade whose new version no longer ships the .ADD its old version put
# there would delete the line that loads it: refused, nothing written.
t_upgrade_dropping_an_add_is_refused() {
	guest
	mkdir -p "$T/recipe-evil-psd-1.0"
	printf 'evil adapter driver\n' >"$T/recipe-evil-psd-1.0/DANIS506.ADD"
	evil_package evil-psd 1.0 'file DANIS506.ADD \OS2\BOOT\DANIS506.ADD' 'config-need BASEDEV DANIS506.ADD'
	wd --root "$V" --keys "$T/k" install "$T/evil-psd-1.0.wdp"
	assert_rc 0
	evil_package evil-psd 2.0
	repo_of "$T/evil-psd-2.0.wdp"
	local n
	n=$(line_of '^BASEDEV=DANIS506\.ADD')
	vol_before=$(snapshot "$V")
	sentinel_before=$(snapshot "$T/root/sentinel")
	wd --root "$V" --keys "$T/k" --repo "$T/repo" upgrade --yes
	refused_here "evil-psd 2.0 would remove or rewrite CONFIG.SYS line $n" "$n"
	assert_err "adapter driver"
}

# The real ACPI package still configures: APM.ADD is its own, no disk driver.
t_the_acpi_package_still_configures() {
	volume ecs21-e1000
	subscribe acpi
	V="$T/v"
	wd --root "$V" configure acpi --yes
	assert_rc 0
	grep -aq '^BASEDEV=APM.ADD' "$V/CONFIG.SYS" || fail "no APM.ADD line"
	check_clean
}

# ---- check ----

# Replaces a whole CONFIG.SYS line of $V (CR LF kept) by the lines given.
cs_line() { # OLD NEW...
	local old=$1
	shift
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
check_of() { # checks $V, which it must not change
	local before
	before=$(snapshot "$V")
	wd --root "$V" --json check
	[ "$(snapshot "$V")" = "$before" ] || fail "check changed the volume"
}
has_error() { # CODE TEXT
	assert_json "any(f['code'] == '$1' and f['severity'] == 'error' and f['path'] == 'CONFIG.SYS' and '$2' in f['message'] for f in d['findings'])"
}
no_code() { # CODE
	assert_json "not any(f['code'] == '$1' for f in d['findings'])"
}

t_check_no_disk_manager() {
	guest
	cs_line 'BASEDEV=OS2DASD.DMD' 'REM BASEDEV=OS2DASD.DMD'
	check_of
	assert_rc 1
	has_error no-disk-driver 'no BASEDEV= line loads OS2DASD.DMD'
	wd --root "$V" check
	assert_rc 1
	assert_out "CONFIG.SYS: error: no BASEDEV= line loads OS2DASD.DMD"
	assert_out "[no-disk-driver]"
}

t_check_no_adapter_driver() {
	guest
	cs_line 'BASEDEV=IBM1FLPY.ADD'
	cs_line 'BASEDEV=DANIS506.ADD /!BIOS' 'BASEDEV=APM.ADD'
	cp "$FIX/volumes/ecs-e1000-settings/OS2/BOOT/APM.ADD" "$V/OS2/BOOT/APM.ADD"
	check_of
	assert_rc 1
	has_error no-disk-driver 'no BASEDEV= line loads a disk adapter driver'
	assert_json "len([f for f in d['findings'] if f['severity'] == 'error']) == 1"
}

t_check_no_boot_ifs() {
	guest
	cs_line 'IFS=C:\OS2\JFS.IFS /LW:5,20,4 /AUTOCHECK:*'
	check_of
	assert_rc 0 # HPFS still loads
	no_code no-boot-ifs
	cs_line 'IFS=C:\OS2\HPFS.IFS /CACHE:2048 /CRECL:4 /AUTOCHECK:*' 'REM IFS=C:\OS2\HPFS.IFS'
	check_of
	assert_rc 1
	has_error no-boot-ifs 'no IFS= line loads JFS.IFS or HPFS.IFS'
	wd --root "$V" check
	assert_rc 1
	assert_out "[no-boot-ifs]"
}

# No JFS or HPFS driver on the volume and none loaded: a FAT boot volume,
# which needs no IFS= line: no finding.
t_check_fat_volume_needs_no_ifs() {
	guest
	cs_line 'IFS=C:\OS2\JFS.IFS /LW:5,20,4 /AUTOCHECK:*'
	cs_line 'IFS=C:\OS2\HPFS.IFS /CACHE:2048 /CRECL:4 /AUTOCHECK:*'
	rm "$V/OS2/JFS.IFS" "$V/OS2/HPFS.IFS"
	check_of
	assert_rc 0
	no_code no-boot-ifs
}

# An OS/2 1.3 volume with LAN Manager (composed from the facts of
# docs/os2-facts.md: no BASEDEV= line at all, the kernel loads the disk
# driver itself): no-disk-driver does not apply, and check changes nothing.
# The same CONFIG.SYS on a volume holding the Workplace Shell is OS/2 2.0 or
# later again, where the rule holds.
t_check_os2_1x_no_disk_driver() {
	V="$T/v13"
	mkdir -p "$V/OS2/DLL" "$V/LANMAN/DRIVERS/PROTMAN"
	printf '%s\r\n' 'PROTSHELL=C:\OS2\PMSHELL.EXE C:\OS2\OS2.INI C:\OS2\OS2SYS.INI C:\OS2\CMD.EXE' \
		'SET COMSPEC=C:\OS2\CMD.EXE' 'LIBPATH=C:\OS2\DLL;C:\LANMAN\NETLIB;C:\;' \
		'SET PATH=C:\OS2;C:\OS2\SYSTEM;C:\LANMAN\NETPROG;' 'BUFFERS=30' \
		'IFS=C:\OS2\HPFS.IFS -C:64' 'DEVICE=C:\OS2\COM01.SYS' \
		'DEVICE=C:\LANMAN\DRIVERS\PROTMAN\PROTMAN.OS2 /I:C:\LANMAN' >"$V/CONFIG.SYS"
	for f in OS2/HPFS.IFS OS2/COM01.SYS OS2/PMSHELL.EXE OS2/CMD.EXE LANMAN/DRIVERS/PROTMAN/PROTMAN.OS2; do
		printf 'stand-in\n' >"$V/$f"
	done
	check_of
	assert_rc 0
	no_code no-disk-driver
	assert_json "[f for f in d['findings'] if f['severity'] == 'error'] == []"
	wd --root "$V" check
	assert_no_out "no-disk-driver"
	printf 'stand-in\n' >"$V/OS2/DLL/PMWP.DLL"
	check_of
	assert_rc 1
	has_error no-disk-driver 'no BASEDEV= line loads OS2DASD.DMD'
	has_error no-disk-driver 'no BASEDEV= line loads a disk adapter driver'
}

# The fixture volumes and the real CONFIG.SYS samples with their disk
# drivers and file systems raise none of these.
t_check_fixtures_boot() {
	for v in "$FIX"/volumes/*; do
		V=$v
		check_of
		no_code no-disk-driver
		no_code no-boot-ifs
	done
}
t_check_samples_boot() {
	need_samples
	for s in vbox-unattended os2yum updcd; do
		guest_dir="$T/s-$s"
		cp -a "$FIX/volumes/ecs21-e1000" "$guest_dir"
		cp "$SAMPLES/$s/CONFIG.SYS" "$guest_dir/CONFIG.SYS"
		V=$guest_dir
		check_of
		no_code no-disk-driver
		no_code no-boot-ifs
	done
}

run_tests
