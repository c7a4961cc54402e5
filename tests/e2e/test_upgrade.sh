#!/usr/bin/env bash
# Upgrades: a newer version of an installed package replaces the old one's
# files in one transaction; downgrades are asked for by version; held
# packages stay; `owns` names the package a file came from.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pkg_lib.sh"

# $T/repo with testpkg 1.0 (make_recipe), $T/new with 1.1: TEST.OS2 and
# KEEP.SYS rewritten, NEW.ADD gone, OTHER.SYS added.
make_two_versions() {
	make_key
	make_recipe "$T/r10"
	mkdir -p "$T/repo" "$T/r11" "$T/new"
	wda pack "$T/r10" --key "$T/k/repo/test.key" --out "$T/repo/testpkg-1.0.wdp"
	assert_rc 0
	cat >"$T/r11/MANIFEST" <<'M'
format 1
name testpkg
version 1.1
released 2024-06-01
summary A package for the tests
kind psd
file TEST.OS2 \IBMCOM\MACS\TEST.OS2
file KEEP.SYS \OS2\KEEP.SYS
file OTHER.SYS \OS2\OTHER.SYS
M
	printf 'test driver 1.1\n' >"$T/r11/TEST.OS2"
	printf 'the package KEEP.SYS 1.1\n' >"$T/r11/KEEP.SYS"
	printf 'other driver\n' >"$T/r11/OTHER.SYS"
	wda pack "$T/r11" --key "$T/k/repo/test.key" --out "$T/new/testpkg-1.1.wdp"
	assert_rc 0
}

# A volume with testpkg 1.0 installed from $T/repo; $T/new offers 1.1.
installed_10() {
	make_two_versions
	make_volume "$T/v"
	wda index "$T/repo" --key "$T/k/repo/test.key"
	assert_rc 0
	wd --root "$T/v" --keys "$T/k" --repo "$T/repo" install testpkg
	assert_rc 0
	wda index "$T/new" --key "$T/k/repo/test.key"
	assert_rc 0
}

# The older repository first: upgrade looks for the newest in every one.
up() { wd --root "$T/v" --keys "$T/k" --repo "$T/repo" --repo "$T/new" "$@"; }

t_upgrade_replaces_the_old_files_with_the_new_in_one_transaction() {
	installed_10
	up upgrade --dry-run
	assert_rc 0
	assert_out "Upgrade testpkg 1.0 -> 1.1:"
	assert_out "delete the old version's"
	up upgrade
	assert_rc 2
	assert_err "no terminal to ask on"
	up upgrade --yes
	assert_rc 0
	assert_out "Upgraded testpkg to 1.1"
	assert_same_file "$T/v/IBMCOM/MACS/TEST.OS2" "$T/r11/TEST.OS2"
	assert_same_file "$T/v/OS2/KEEP.SYS" "$T/r11/KEEP.SYS"
	assert_same_file "$T/v/OS2/OTHER.SYS" "$T/r11/OTHER.SYS"
	[ ! -e "$T/v/OS2/BOOT/NEW.ADD" ] || fail "the old version's NEW.ADD is still there"
	[ -z "$(find "$T/v/var/lib/warpdrv/kept" -name 'u-*')" ] || fail "an undo copy was left"
	wd --root "$T/v" --json list --installed
	assert_json 'd["packages"][0]["version"] == "1.1"'
	wd --root "$T/v" history
	assert_out "upgrade"
	wd --root "$T/v" verify
	assert_rc 0
	# the file KEEP.SYS replaced from the OS is still put back on removal
	wd --yes --root "$T/v" remove testpkg
	assert_rc 0
	assert_out "Removed testpkg 1.1"
	grep -q "the KEEP.SYS the OS shipped" "$T/v/OS2/KEEP.SYS" || fail "the original KEEP.SYS is gone"
	[ ! -e "$T/v/OS2/OTHER.SYS" ] || fail "OTHER.SYS stayed after removal"
	up upgrade --yes
	assert_rc 0
	assert_out "Nothing to upgrade."
}

t_install_of_a_newer_version_is_an_upgrade_and_a_downgrade_needs_the_version() {
	installed_10
	wd --root "$T/v" --keys "$T/k" --repo "$T/new" install testpkg
	assert_rc 0
	assert_out "Upgraded testpkg 1.0 -> 1.1"
	snap=$(snapshot "$T/v")
	up install "$T/repo/testpkg-1.0.wdp"
	assert_rc 1
	assert_err "testpkg 1.1 is installed and 1.0 is older: a downgrade must be asked for by version ('warpdrv install testpkg=1.0')"
	[ "$(snapshot "$T/v")" = "$snap" ] || fail "a refused downgrade changed the volume"
	up --yes install testpkg=1.0 # a downgrade asks (tests/e2e/test_downgrade.sh)
	assert_rc 0
	assert_out "Downgraded testpkg 1.1 -> 1.0"
	assert_same_file "$T/v/OS2/BOOT/NEW.ADD" "$T/r10/NEW.ADD"
	[ ! -e "$T/v/OS2/OTHER.SYS" ] || fail "1.1's OTHER.SYS stayed after the downgrade"
	up install testpkg=9.9
	assert_rc 1
	assert_err "no package testpkg at version 9.9"
}

t_a_held_package_is_not_upgraded() {
	installed_10
	wd --root "$T/v" hold testpkg
	assert_rc 0
	snap=$(snapshot "$T/v")
	up upgrade --yes
	assert_rc 0
	assert_out "testpkg 1.0 is held: 1.1 is not installed"
	assert_out "Nothing to upgrade."
	[ "$(snapshot "$T/v")" = "$snap" ] || fail "upgrading a held package changed the volume"
	up --json upgrade --yes
	assert_rc 0
	assert_json 'd["packages"][0]["held"] and d["packages"][0]["upgrade_to"] is None'
	wd --root "$T/v" hold nosuch
	assert_rc 1
	assert_err "nosuch is not installed"
	wd --root "$T/v" unhold testpkg
	assert_rc 0
	up upgrade --yes
	assert_rc 0
	assert_out "Upgraded testpkg to 1.1"
}

t_upgrade_of_a_package_not_installed_is_refused() {
	installed_10
	snap=$(snapshot "$T/v")
	up upgrade nosuch --yes
	assert_rc 1
	assert_err "nosuch is not installed, and no repository has a package of that name"
	[ "$(snapshot "$T/v")" = "$snap" ] || fail "the refusal changed the volume"
}

t_owns_names_the_package_a_file_came_from() {
	installed_10
	wd --root "$T/v" owns 'C:\IBMCOM\MACS\TEST.OS2'
	assert_rc 0
	assert_out '\IBMCOM\MACS\TEST.OS2 belongs to testpkg 1.0.'
	wd --root "$T/v" owns "$T/v/OS2/KEEP.SYS"
	assert_rc 0
	assert_out "belongs to testpkg 1.0"
	wd --root "$T/v" --json owns '\os2\boot\new.add'
	assert_rc 0
	assert_json 'd["package"] == "testpkg" and d["version"] == "1.0"'
	wd --root "$T/v" owns 'C:\IBMCOM\MACS\E1000.OS2'
	assert_rc 1
	assert_err "no installed package put this file on the volume"
	wd --root "$T/v" owns /elsewhere/file
	assert_rc 2
}

t_list_tells_the_installed_and_the_newest_version_and_where_from() {
	installed_10
	up list
	assert_rc 0
	assert_out "[installed 1.0; 1.1 from file://$T/new"
	up --json list
	assert_json '[(p["version"], p["installed_version"], p["upgradable"], p["repository"]) for p in d["packages"] if p["name"] == "testpkg"] == [("1.1", "1.0", True, "file://'"$T"'/new")]'
	up list --upgradable
	assert_rc 0
	assert_out "testpkg"
	assert_no_out "mmlem"
	wd --root "$T/v" hold testpkg
	up list
	assert_out "; held]"
	wd --root "$T/v" list --installed
	assert_out "[held]"
	wd --root "$T/v" --json list --installed
	assert_json 'd["packages"][0]["held"] is True'
	wd --root "$T/v" unhold testpkg
	up upgrade --yes
	assert_rc 0
	up list
	assert_out "[installed]"
	up --json list --upgradable
	assert_rc 0
	assert_json 'd["packages"] == []'
	wd list --upgradable
	assert_rc 2
}

# A recipe of testpkg VERSION released DATE that needs 'drivers', packed
# into repository folder DIR and indexed.
entitled_version() { # DIR VERSION DATE
	mkdir -p "$1" "$T/rec-$2"
	cat >"$T/rec-$2/MANIFEST" <<M
format 1
name testpkg
version $2
released $3
summary A package for the tests
kind psd
entitlement drivers
file TEST.OS2 \IBMCOM\MACS\TEST.OS2
M
	printf 'test driver %s\n' "$2" >"$T/rec-$2/TEST.OS2"
	wda pack "$T/rec-$2" --key "$T/k/repo/test.key" --out "$1/testpkg-$2.wdp"
	assert_rc 0
	wda index "$1" --key "$T/k/repo/test.key"
	assert_rc 0
}

t_an_expired_subscription_keeps_what_it_paid_for_and_says_what_a_renewal_adds() {
	make_key
	make_volume "$T/v"
	entitled_version "$T/a" 1.0 2024-01-01
	entitled_version "$T/b" 1.2 2024-03-01
	entitled_version "$T/c" 1.3 2024-06-01
	wda issue --key "$WARPDRV_BUILD/keys/license/dev.key" --customer 7 --entitlements drivers \
		--issued 2024-01-01 --expires 2024-03-31
	assert_rc 0
	wd --root "$T/v" activate "$OUT"
	assert_rc 0
	e() { wd --root "$T/v" --keys "$T/k" --repo "$T/a" --repo "$T/b" --repo "$T/c" "$@"; }
	e install testpkg=1.0
	assert_rc 0
	e upgrade --yes
	assert_rc 0
	assert_out "Upgraded testpkg to 1.2"
	assert_out "testpkg: 1.3 is not offered: testpkg 1.3 needs the 'drivers' entitlement and was released 2024-06-01, after the subscription expired on 2024-03-31: renew it to install this release"
	grep -q "test driver 1.2" "$T/v/IBMCOM/MACS/TEST.OS2" || fail "1.2 is not installed"
	snap=$(snapshot "$T/v")
	e upgrade --yes
	assert_rc 0
	assert_out "Nothing to upgrade."
	assert_out "renew it to install this release"
	e --json upgrade --yes
	assert_json 'd["packages"][0]["not_offered"] == "1.3" and d["packages"][0]["upgrade_to"] is None'
	[ "$(snapshot "$T/v")" = "$snap" ] || fail "nothing to upgrade changed the volume"
}

# mmlem VERSION as a recipe in $T/mmlem-VERSION, packed into $T/www/NAME.
# With a DRIVER stem, the driver file, NIF and DriverName are renamed.
mmlem_version() { # NAME VERSION [DRIVER]
	local d="$T/mmlem-$2" stem=${3:-MMLEM}
	mkdir -p "$T/www/$1"
	cp -R "$SRC/drivers/mmlem" "$d"
	sed -i -e "s/^version .*/version $2/" -e 's/^released .*/released 2026-06-01/' \
		-e "s/MMLEM/$stem/g" "$d/MANIFEST"
	printf 'MMLEM %s stand-in driver\n' "$2" >"$d/MMLEM.OS2"
	sed "s/MMLEM/$stem/g" "$SRC/drivers/mmlem/MMLEM.NIF" >"$d/$stem.NIF.new"
	rm "$d/MMLEM.NIF"
	mv "$d/$stem.NIF.new" "$d/$stem.NIF"
	[ "$stem" = MMLEM ] || mv "$d/MMLEM.OS2" "$d/$stem.OS2"
	wda pack "$d" --key "$T/k/repo/test.key" --out "$T/www/$1/"
	assert_rc 0
	wda index "$T/www/$1" --key "$T/k/repo/test.key"
	assert_rc 0
}

# A configured guest: eComStation on an 82540EM, set up with MMLEM 2.06 in
# CONFIG.SYS and PROTOCOL.INI, upgraded to 2.07 over HTTP from nginx; then
# to a 2.08 whose driver is MMLEMX.OS2 (DriverName MMLEMX$): the DEVICE= line
# and the section change in the same generation, and rollback restores both.
t_a_configured_guest_upgrades_mmlem_from_a_loopback_repository() {
	make_key
	activated_copy "$T/g"
	pci="lspci:$FIX/pci/vbox-82540em.lspci-n"
	wd --root "$T/g" --pci "$pci" setup --yes
	assert_rc 0
	grep -q 'MMLEM.OS2' "$T/g/CONFIG.SYS" || fail "setup did not configure MMLEM"
	cp "$T/g/CONFIG.SYS" "$T/cs.206"
	cp "$T/g/IBMCOM/PROTOCOL.INI" "$T/pi.206"
	start_nginx
	mmlem_version r207 2.07
	g() { wd --root "$T/g" --keys "$T/k" --repo "http://127.0.0.1:$PORT/$1/" "${@:2}"; }
	g r207 upgrade --dry-run
	assert_rc 0
	# planned from the signed index: nothing is downloaded before a yes
	assert_out "Upgrade mmlem 2.06 -> 2.07 (download "
	! grep -q "GET /r207/mmlem-2.07.wdp" "$T/nginx/logs/access.log" || fail "--dry-run downloaded"
	g r207 upgrade --yes
	assert_rc 0
	assert_out "Upgraded mmlem to 2.07"
	grep -q "GET /r207/mmlem-2.07.wdp" "$T/nginx/logs/access.log" || fail "nginx did not serve 2.07"
	grep -q "MMLEM 2.07 stand-in" "$T/g/IBMCOM/MACS/MMLEM.OS2" || fail "MMLEM.OS2 is not 2.07's"
	assert_same_file "$T/g/CONFIG.SYS" "$T/cs.206"
	assert_same_file "$T/g/IBMCOM/PROTOCOL.INI" "$T/pi.206"
	wd --root "$T/g" check
	assert_rc 0
	# 2.08 renames the driver: both files change, in one generation
	mmlem_version r208 2.08 MMLEMX
	g r208 upgrade --dry-run
	assert_rc 0
	assert_out "Upgrade mmlem 2.07 -> 2.08 (download "
	assert_same_file "$T/g/CONFIG.SYS" "$T/cs.206"
	g r208 upgrade --yes
	assert_rc 0
	assert_out "+DEVICE="
	assert_out 'MMLEMX.OS2'
	assert_out "Upgraded mmlem to 2.08"
	assert_out "generation"
	grep -q 'DEVICE=.*\\IBMCOM\\MACS\\MMLEMX.OS2'$'\r''$' "$T/g/CONFIG.SYS" || fail "CONFIG.SYS does not load MMLEMX.OS2 with CR LF"
	! grep -q 'MMLEM.OS2' "$T/g/CONFIG.SYS" || fail "CONFIG.SYS still loads MMLEM.OS2"
	grep -qi 'DriverName *= *MMLEMX\$'$'\r' "$T/g/IBMCOM/PROTOCOL.INI" || fail "the section's DriverName is not MMLEMX\$"
	grep -q '^\[MMLEMX_nif\]'$'\r' "$T/g/IBMCOM/PROTOCOL.INI" || fail "the section is not MMLEMX_nif"
	grep -q 'MMLEMX_nif = MMLEMX.NIF'$'\r' "$T/g/IBMCOM/PROTOCOL.INI" || fail "[IBMLXCFG] does not name MMLEMX.NIF"
	! grep -q 'MMLEM_nif\|MMLEM\.NIF' "$T/g/IBMCOM/PROTOCOL.INI" || fail "PROTOCOL.INI still names the old section or NIF"
	[ -e "$T/g/IBMCOM/MACS/MMLEMX.OS2" ] && [ ! -e "$T/g/IBMCOM/MACS/MMLEM.OS2" ] || fail "the driver files were not swapped"
	wd --root "$T/g" check
	assert_rc 0
	wd --yes --root "$T/g" rollback
	assert_rc 0
	assert_same_file "$T/g/CONFIG.SYS" "$T/cs.206"
	assert_same_file "$T/g/IBMCOM/PROTOCOL.INI" "$T/pi.206"
}

# Two adapters of one driver: the upgrade reads the instance scheme from the
# new version's manifest, as setup does. A guest set up with MMLEM 2.06 on two
# 82540EMs (MMLEM$, and MMLEM2$ by /A1) upgraded to a 2.08 whose driver is
# MMLEMX.OS2: both lines load MMLEMX.OS2, the second keeps /A1, the sections
# are [MMLEMX_nif] and [MMLEMX_nif2] (as setup names the instances; the
# second kept its old name before) answering to MMLEMX$ and MMLEMX2$, every
# binding and [IBMLXCFG] entry in its place; check is clean and rollback
# gives both files back byte for byte.
t_an_upgrade_renames_every_instance_by_the_new_scheme() {
	make_key
	activated_copy "$T/g"
	sed '$a 00:08.0 0200: 8086:100e (rev 02)' "$FIX/pci/vbox-82540em.lspci-n" >"$T/two.lspci"
	wd --root "$T/g" --pci "lspci:$T/two.lspci" setup --yes
	assert_rc 0
	grep -q 'MMLEM.OS2 /A1'$'\r' "$T/g/CONFIG.SYS" || fail "setup did not configure the second MMLEM"
	cp "$T/g/CONFIG.SYS" "$T/cs.206"
	cp "$T/g/IBMCOM/PROTOCOL.INI" "$T/pi.206"
	mmlem_version r208 2.08 MMLEMX
	wd --root "$T/g" --keys "$T/k" --repo "$T/www/r208" upgrade --yes
	assert_rc 0
	assert_out "Upgraded mmlem to 2.08"
	[ "$(grep -c 'DEVICE=C:\\IBMCOM\\MACS\\MMLEMX.OS2'$'\r''$' "$T/g/CONFIG.SYS")" = 1 ] ||
		fail "the first line does not load MMLEMX.OS2"
	grep -q 'DEVICE=C:\\IBMCOM\\MACS\\MMLEMX.OS2 /A1'$'\r''$' "$T/g/CONFIG.SYS" ||
		fail "the second line lost /A1"
	! grep -q 'MMLEM.OS2' "$T/g/CONFIG.SYS" || fail "CONFIG.SYS still loads MMLEM.OS2"
	grep -q 'DriverName = MMLEMX\$'$'\r' "$T/g/IBMCOM/PROTOCOL.INI" || fail "no MMLEMX\$"
	grep -q 'DriverName = MMLEMX2\$'$'\r' "$T/g/IBMCOM/PROTOCOL.INI" || fail "no MMLEMX2\$"
	! grep -q 'MMLEM2\$\|MMLEM\$' "$T/g/IBMCOM/PROTOCOL.INI" || fail "an old DriverName stayed"
	# each section named as setup names the instance, [IBMLXCFG] renamed in place
	python3 - "$T/pi.206" "$T/g/IBMCOM/PROTOCOL.INI" <<'PY' || fail "PROTOCOL.INI changed in more than the names of the two instances"
import sys
a = open(sys.argv[1], 'rb').read()
for old, new in ((b'MMLEM_nif2 = MMLEM.NIF', b'MMLEMX_nif2 = MMLEMX.NIF'),
                 (b'MMLEM_nif = MMLEM.NIF', b'MMLEMX_nif = MMLEMX.NIF'),
                 (b'[MMLEM_nif2]', b'[MMLEMX_nif2]'), (b'[MMLEM_nif]', b'[MMLEMX_nif]'),
                 (b'= MMLEM_nif', b'= MMLEMX_nif'), (b'MMLEM2$', b'MMLEMX2$'), (b'= MMLEM$', b'= MMLEMX$')):
    a = a.replace(old, new)
sys.exit(0 if a == open(sys.argv[2], 'rb').read() else 1)
PY
	wd --root "$T/g" --json check
	assert_rc 0
	assert_json "[f for f in d['findings'] if f['severity'] == 'error'] == []"
	wd --yes --root "$T/g" rollback
	assert_rc 0
	assert_same_file "$T/g/CONFIG.SYS" "$T/cs.206"
	assert_same_file "$T/g/IBMCOM/PROTOCOL.INI" "$T/pi.206"
}

# A new version whose NIF changes the keywords: the upgrade drops from the
# section the keyword it no longer defines (RXCHAIN) and adds the one it now
# requires (MAXFRAME, at its default), every other line byte for byte, in one
# generation that rollback undoes; a new version whose NIF cannot be read is
# refused with nothing changed.
t_an_upgrade_follows_the_keywords_of_the_new_nif() {
	make_key
	activated_copy "$T/g"
	wd --root "$T/g" --pci "lspci:$FIX/pci/vbox-82540em.lspci-n" setup --yes
	assert_rc 0
	# the user's own keyword, which 2.06's NIF defines
	python3 - "$T/g/IBMCOM/PROTOCOL.INI" <<'PY'
import sys
p = sys.argv[1]
t = open(p, "rb").read()
i = t.index(b"[MMLEM_nif]\r\n")
j = t.index(b"\r\n", t.index(b"DriverName", i)) + 2
open(p, "wb").write(t[:j] + b'   RXCHAIN = "YES"\r\n' + t[j:])
PY
	wd --root "$T/g" check
	assert_rc 0
	cp "$T/g/CONFIG.SYS" "$T/cs.206"
	cp "$T/g/IBMCOM/PROTOCOL.INI" "$T/pi.206"
	mmlem_version r209 2.09
	python3 - "$T/mmlem-2.09/MMLEM.NIF" <<'PY'
import re, sys
p = sys.argv[1]
t = open(p).read()
t = re.sub(r"\[RXCHAIN\].*?(?=\n\[|\Z)", "", t, flags=re.S)
t += "\n[MAXFRAME]\nDisplay = \"Largest frame\"\nType = Decimal\nRange = 1514-9014\nDefault = 1514\nHelp = \"The largest frame sent.\"\n"
open(p, "w").write(t)
PY
	grep -q RXCHAIN "$T/mmlem-2.09/MMLEM.NIF" && fail "the test's NIF still has RXCHAIN"
	wda pack "$T/mmlem-2.09" --key "$T/k/repo/test.key" --out "$T/www/r209/"
	assert_rc 0
	wda index "$T/www/r209" --key "$T/k/repo/test.key"
	assert_rc 0
	g() { wd --root "$T/g" --keys "$T/k" --repo "$T/www/$1" "${@:2}"; }
	g r209 upgrade --dry-run
	assert_rc 0
	assert_out "note: mmlem 2.09 drops RXCHAIN = \"YES\" from [MMLEM_nif]: its MMLEM.NIF does not define RXCHAIN"
	assert_out "note: mmlem 2.09 adds MAXFRAME = 1514 to [MMLEM_nif]: its MMLEM.NIF requires MAXFRAME"
	assert_same_file "$T/g/IBMCOM/PROTOCOL.INI" "$T/pi.206"
	g r209 upgrade --yes
	assert_rc 0
	assert_out "Upgraded mmlem to 2.09"
	assert_out "generation"
	python3 - "$T/pi.206" "$T/g/IBMCOM/PROTOCOL.INI" <<'PY' || fail "PROTOCOL.INI is not the old one with RXCHAIN out and MAXFRAME in"
import sys
old = open(sys.argv[1], "rb").read().split(b"\r\n")
new = open(sys.argv[2], "rb").read().split(b"\r\n")
gone = [l for l in old if l not in new]
added = [l for l in new if l not in old]
assert gone == [b'   RXCHAIN = "YES"'], gone
assert len(added) == 1 and added[0].strip() == b"MAXFRAME = 1514", added
assert [l for l in old if l != gone[0]] == [l for l in new if l != added[0]]
PY
	assert_same_file "$T/g/CONFIG.SYS" "$T/cs.206"
	wd --root "$T/g" check
	assert_rc 0
	wd --yes --root "$T/g" rollback
	assert_rc 0
	assert_same_file "$T/g/IBMCOM/PROTOCOL.INI" "$T/pi.206"
	# 2.10's NIF has no driver section: refused, the volume as it was
	mmlem_version r210 2.10
	printf '[File]\nName = MMLEM.OS2\n' >"$T/mmlem-2.10/MMLEM.NIF"
	wda pack "$T/mmlem-2.10" --key "$T/k/repo/test.key" --out "$T/www/r210/"
	assert_rc 0
	wda index "$T/www/r210" --key "$T/k/repo/test.key"
	assert_rc 0
	before=$(snapshot "$T/g")
	g r210 upgrade --yes
	assert_rc 1
	assert_err "mmlem 2.10: MMLEM.NIF"
	[ "$(snapshot "$T/g")" = "$before" ] || fail "a refused upgrade changed the volume"
}

# `replaces`: the replaced package goes in the same transaction as the
# install (test_crash.sh stops it at every step), and not when CONFIG.SYS
# loads a file of it that the new package does not bring.
t_a_package_that_replaces_another_installs_in_one_transaction() {
	make_good_package
	make_volume "$T/v"
	wd --root "$T/v" --keys "$T/k" install "$T/good.wdp"
	assert_rc 0
	mkdir -p "$T/r2"
	cat >"$T/r2/MANIFEST" <<'M'
format 1
name other
version 2.0
released 2024-01-01
summary Takes testpkg's place
kind psd
replaces testpkg
file KEEP.SYS \OS2\KEEP.SYS
file OTHER.SYS \OS2\OTHER.SYS
M
	printf 'other KEEP.SYS\n' >"$T/r2/KEEP.SYS"
	printf 'other driver\n' >"$T/r2/OTHER.SYS"
	wda pack "$T/r2" --key "$T/k/repo/test.key" --out "$T/other.wdp"
	assert_rc 0
	# CONFIG.SYS loads TEST.OS2, which other does not bring: refused
	cp -a "$T/v" "$T/loaded"
	printf 'DEVICE=C:\\IBMCOM\\MACS\\TEST.OS2\r\n' >>"$T/loaded/CONFIG.SYS"
	snap=$(snapshot "$T/loaded")
	wd --root "$T/loaded" --keys "$T/k" install "$T/other.wdp"
	assert_rc 1
	assert_err "CONFIG.SYS line 3 loads TEST.OS2, which installing other deletes"
	[ "$(snapshot "$T/loaded")" = "$snap" ] || fail "the refusal changed the volume"
	wd --root "$T/v" --keys "$T/k" install "$T/other.wdp"
	assert_rc 0
	assert_out "Removed testpkg 1.0 (replaced by other)"
	assert_out "Installed other 2.0"
	wd --root "$T/v" --json list --installed
	assert_json '[p["name"] for p in d["packages"]] == ["other"]'
	[ ! -e "$T/v/IBMCOM/MACS/TEST.OS2" ] && [ ! -e "$T/v/OS2/BOOT/NEW.ADD" ] || fail "testpkg's files stayed"
	wd --root "$T/v" owns '\OS2\KEEP.SYS'
	assert_out "belongs to other 2.0"
	wd --root "$T/v" verify
	assert_rc 0
	# the OS's KEEP.SYS, kept when testpkg replaced it, comes back on removal
	wd --yes --root "$T/v" remove other
	assert_rc 0
	grep -q "the KEEP.SYS the OS shipped" "$T/v/OS2/KEEP.SYS" || fail "the original KEEP.SYS is gone"
}

# Space is checked before anything is written: on a 4 MiB tmpfs, 1.0's
# 1.5 MB file installs; 1.1's would fit alone, but not with the copy of 1.0's
# to undo from and the database's growth, so the upgrade is refused.
t_a_full_volume_is_refused_with_nothing_changed() {
	[ "$(id -u)" = 0 ] || skip "mounting a tmpfs needs root"
	make_key
	mkdir -p "$T/mnt" "$T/big10" "$T/big11" "$T/repo" "$T/new"
	mount -t tmpfs -o size=4m tmpfs "$T/mnt" || skip "cannot mount a tmpfs here"
	trap 'umount "$T/mnt" 2>/dev/null || true' EXIT
	make_volume "$T/mnt/v"
	for v in 1.0 1.1; do
		d="$T/big${v/./}"
		printf 'format 1\nname bigpkg\nversion %s\nreleased 2024-01-01\nsummary Big\nkind psd\nfile BIG.SYS \\OS2\\BIG.SYS\n' "$v" >"$d/MANIFEST"
		head -c 1500000 /dev/urandom >"$d/BIG.SYS"
	done
	wda pack "$T/big10" --key "$T/k/repo/test.key" --out "$T/repo/"
	wda index "$T/repo" --key "$T/k/repo/test.key"
	wda pack "$T/big11" --key "$T/k/repo/test.key" --out "$T/new/"
	wda index "$T/new" --key "$T/k/repo/test.key"
	assert_rc 0
	wd --root "$T/mnt/v" --keys "$T/k" --repo "$T/repo" install bigpkg
	assert_rc 0
	snap=$(snapshot "$T/mnt/v")
	free=$(df -B1 --output=avail "$T/mnt" | tail -1)
	[ "$free" -gt 1600000 ] || fail "the test volume is too small: $free bytes free"
	wd --root "$T/mnt/v" --keys "$T/k" --repo "$T/new" upgrade --yes
	assert_rc 1
	assert_err "not enough room on the volume for bigpkg 1.1: it needs"
	assert_err "(new files 1500000, copies to undo from 1500000, database"
	assert_err "bytes are free; nothing was changed"
	[ "$(snapshot "$T/mnt/v")" = "$snap" ] || fail "the refused upgrade changed the volume"
	wd --root "$T/mnt/v" --keys "$T/k" --repo "$T/new" install bigpkg
	assert_rc 1
	assert_err "not enough room on the volume for bigpkg 1.1"
	[ "$(snapshot "$T/mnt/v")" = "$snap" ] || fail "the refused install changed the volume"
	umount "$T/mnt"
}

# Room for each of two upgrades is not room for both: on a 6 MiB tmpfs with
# biga and bigb 1.0 (1.2 MB each) installed, either 1.1 alone fits (new file,
# copy to undo from, database), both in one transaction do not; the refusal
# names both and changes nothing, and one alone then goes through.
t_an_upgrade_of_several_packages_needs_room_for_all_of_them() {
	[ "$(id -u)" = 0 ] || skip "mounting a tmpfs needs root"
	make_key
	mkdir -p "$T/mnt" "$T/repo" "$T/new"
	mount -t tmpfs -o size=6m tmpfs "$T/mnt" || skip "cannot mount a tmpfs here"
	trap 'umount "$T/mnt" 2>/dev/null || true' EXIT
	make_volume "$T/mnt/v"
	for n in a b; do
		for v in 1.0 1.1; do
			d="$T/big$n${v/./}"
			mkdir -p "$d"
			printf 'format 1\nname big%s\nversion %s\nreleased 2024-01-01\nsummary Big\nkind psd\nfile BIG%s.SYS \\OS2\\BIG%s.SYS\n' \
				"$n" "$v" "$n" "$n" >"$d/MANIFEST"
			head -c 1200000 /dev/urandom >"$d/BIG$n.SYS"
			wda pack "$d" --key "$T/k/repo/test.key" --out "$T/$([ "$v" = 1.0 ] && echo repo || echo new)/"
			assert_rc 0
		done
	done
	wda index "$T/repo" --key "$T/k/repo/test.key"
	wda index "$T/new" --key "$T/k/repo/test.key"
	assert_rc 0
	wd --root "$T/mnt/v" --keys "$T/k" --repo "$T/repo" install biga bigb
	assert_rc 0
	free=$(df -B1 --output=avail "$T/mnt" | tail -1)
	[ "$free" -gt 2700000 ] && [ "$free" -lt 5000000 ] || fail "the test volume has $free bytes free, not between one upgrade's room and two"
	snap=$(snapshot "$T/mnt/v")
	wd --root "$T/mnt/v" --keys "$T/k" --repo "$T/new" upgrade --yes
	assert_rc 1
	assert_err "not enough room on the volume for biga 1.1, bigb 1.1: it needs"
	assert_err "(new files 2400000, copies to undo from 2400000, database"
	assert_err "nothing was changed"
	[ "$(snapshot "$T/mnt/v")" = "$snap" ] || fail "the refused upgrade changed the volume"
	wd --root "$T/mnt/v" --keys "$T/k" --repo "$T/new" upgrade --yes biga
	assert_rc 0
	assert_out "Upgraded biga to 1.1"
	umount "$T/mnt"
}

# $T/www/many: 200 NIC driver packages for devices this guest does not have,
# and drvbest, the best ranked driver for its 82540EM.
many_drivers() {
	mkdir -p "$T/www/many"
	for i in $(seq -w 0 200); do
		local name=drv$i dev rank=5
		dev=$(printf '10ec:%04x' "$((0x8000 + 10#$i))")
		[ "$i" != 200 ] || { name=drvbest; dev=8086:100e; rank=0; }
		local d="$T/rec/$name" stem=D${i}
		mkdir -p "$d"
		printf 'format 1\nname %s\nversion 1.0\nreleased 2024-01-01\nsummary Test NIC driver %s\nkind nic\npci %s rank %s\ndriver %s.OS2\nnif %s.NIF\ndrivername %s$\nfile %s.OS2 \\IBMCOM\\MACS\\%s.OS2\nfile %s.NIF \\IBMCOM\\MACS\\%s.NIF\n' \
			"$name" "$i" "$dev" "$rank" "$stem" "$stem" "$stem" "$stem" "$stem" "$stem" "$stem" >"$d/MANIFEST"
		printf 'stand-in driver %s\n' "$i" >"$d/$stem.OS2"
		sed -e "s/E1000\\\$/$stem\$/" -e "s/E1000.OS2/$stem.OS2/" -e 's/^\[E1000\]/['"$stem"']/' \
			"$SRC/drivers/e1000/E1000.NIF" >"$d/$stem.NIF"
		"$WDA" -q pack "$d" --key "$T/k/repo/test.key" --out "$T/www/many/" >/dev/null
	done
	wda index "$T/www/many" --key "$T/k/repo/test.key"
	assert_rc 0
}

# setup plans from the index: of 201 driver packages on the server, only the
# one it installs is downloaded. Without the index's choose lines (an older
# index), each package is read to choose, and setup still works.
t_setup_downloads_only_the_driver_it_installs() {
	make_key
	start_nginx
	many_drivers
	grep -q '^choose drvbest 8086:100e=0$' "$T/www/many/INDEX" || fail "the index lacks drvbest's choose line"
	pci="lspci:$FIX/pci/vbox-82540em.lspci-n"
	cp -a "$FIX/volumes/ecs21-e1000" "$T/g"
	wd --root "$T/g" --keys "$T/k" --repo "http://127.0.0.1:$PORT/many/" --pci "$pci" detect
	assert_rc 0
	assert_out "drvbest"
	: >"$T/nginx/logs/access.log"
	wd --root "$T/g" --keys "$T/k" --repo "http://127.0.0.1:$PORT/many/" --pci "$pci" setup --yes
	assert_rc 0
	grep -q 'D200.OS2' "$T/g/CONFIG.SYS" || fail "setup did not configure drvbest"
	gets=$(grep -c '\.wdp HTTP' "$T/nginx/logs/access.log" || true)
	[ "$gets" = 1 ] || fail "setup downloaded $gets packages: $(grep wdp "$T/nginx/logs/access.log" | head -5)"
	grep -q 'GET /many/drvbest-1.0.wdp' "$T/nginx/logs/access.log" || fail "drvbest was not downloaded"
	echo "setup against 201 packages: $gets package download(s)"
	# the same repository added to the volume and stored by update: the
	# stored catalog keeps what setup chooses by
	cp -a "$FIX/volumes/ecs21-e1000" "$T/g3"
	wd --root "$T/g3" --keys "$T/k" repo add many "http://127.0.0.1:$PORT/many/"
	assert_rc 0
	wd --root "$T/g3" --keys "$T/k" update
	assert_rc 0
	: >"$T/nginx/logs/access.log"
	wd --root "$T/g3" --keys "$T/k" --pci "$pci" setup --yes
	assert_rc 0
	grep -q 'D200.OS2' "$T/g3/CONFIG.SYS" || fail "setup from the stored catalog did not configure drvbest"
	gets=$(grep -c '\.wdp HTTP' "$T/nginx/logs/access.log" || true)
	[ "$gets" = 1 ] || fail "setup from the stored catalog downloaded $gets packages"
	# an older index without the choose and nic lines: each package is read
	sed -i '/^choose /d; /^nic /d' "$T/www/many/INDEX"
	resign "$T/www/many/INDEX" "$T/k/repo/test.key"
	cp -a "$FIX/volumes/ecs21-e1000" "$T/g2"
	: >"$T/nginx/logs/access.log"
	wd --root "$T/g2" --keys "$T/k" --repo "http://127.0.0.1:$PORT/many/" --pci "$pci" setup --yes
	assert_rc 0
	grep -q 'D200.OS2' "$T/g2/CONFIG.SYS" || fail "setup from an older index did not configure drvbest"
	gets=$(grep -c '\.wdp HTTP' "$T/nginx/logs/access.log" || true)
	[ "$gets" -ge 200 ] || fail "an older index read only $gets packages"
}

# The ACPI PSD's new version needs another statement and no longer has the
# daemon: CONFIG.SYS gains the one and loses the other in one generation;
# rollback puts it back.
t_an_acpi_psd_upgrade_rewrites_its_config_sys_lines() {
	make_key
	activated_copy "$T/g"
	wd --root "$T/g" configure acpi --yes
	assert_rc 0
	grep -q 'ACPIDAEMON.EXE' "$T/g/CONFIG.SYS" || fail "configure acpi did not start the daemon"
	cp "$T/g/CONFIG.SYS" "$T/cs.before"
	d="$T/acpi-new"
	cp -R "$SRC/drivers/acpi-psd" "$d"
	sed -i -e 's/^version .*/version 3.23.17/' -e 's/^released .*/released 2026-06-01/' \
		-e '/ACPIDAEMON/d' "$d/MANIFEST"
	printf 'file ACPIX.SYS \\OS2\\BOOT\\ACPIX.SYS\nconfig-need DEVICE \\OS2\\BOOT\\ACPIX.SYS\n' >>"$d/MANIFEST"
	rm -f "$d/ACPIDAEMON.EXE"
	printf 'stand-in ACPIX.SYS\n' >"$d/ACPIX.SYS"
	mkdir -p "$T/repo"
	wda pack "$d" --key "$T/k/repo/test.key" --out "$T/repo/"
	assert_rc 0
	wda index "$T/repo" --key "$T/k/repo/test.key"
	assert_rc 0
	wd --root "$T/g" --keys "$T/k" --repo "$T/repo" upgrade acpi-psd --dry-run
	assert_rc 0
	assert_out '+DEVICE=C:\OS2\BOOT\ACPIX.SYS'
	assert_out '-RUN=C:\OS2\ACPIDAEMON.EXE'
	assert_same_file "$T/g/CONFIG.SYS" "$T/cs.before"
	wd --root "$T/g" --keys "$T/k" --repo "$T/repo" upgrade acpi-psd --yes
	assert_rc 0
	assert_out "Upgraded acpi-psd to 3.23.17"
	grep -q 'DEVICE=C:\\OS2\\BOOT\\ACPIX.SYS'$'\r' "$T/g/CONFIG.SYS" || fail "CONFIG.SYS lacks the new statement"
	! grep -q 'ACPIDAEMON' "$T/g/CONFIG.SYS" || fail "CONFIG.SYS still starts the daemon"
	[ ! -e "$T/g/OS2/ACPIDAEMON.EXE" ] || fail "the daemon stayed"
	wd --yes --root "$T/g" rollback
	assert_rc 0
	assert_same_file "$T/g/CONFIG.SYS" "$T/cs.before"
}

run_tests
