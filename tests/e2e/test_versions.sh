#!/usr/bin/env bash
# Repositories that keep every release: an index lists several versions of
# a name (its "older" lines), the catalog keeps them all, and the
# entitlement rule picks, per package, the newest version the subscription
# allows from every repository. A repository on loopback holds e1000 4.02,
# 4.03 and 4.04 and mmlem 2.06 and 2.07, 2.07 released after a lapsed test
# key's expiry. Today is the real date: the dates are in the past.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pkg_lib.sh"

FIXT="$TESTTMP/fixture"
LAPSED_EXPIRES=2026-06-30

# A recipe of drivers/NAME at VERSION, released RELEASED, whose driver file
# says which version and repository it is.
recipe() { # NAME VERSION RELEASED DIR
	local drv
	drv=$(echo "$1" | tr a-z A-Z)
	mkdir -p "$4"
	cp "$SRC/drivers/$1/"* "$4/"
	sed -i "s/^version .*/version $2/; s/^released .*/released $3/" "$4/MANIFEST"
	printf '%s %s from the loopback repository\r\n' "$1" "$2" >"$4/$drv.OS2"
}

mkdir -p "$FIXT/k/repo" "$FIXT/k/license" "$FIXT/srv"
"$WDA" -q keygen --out "$FIXT/k/repo/test" >/dev/null
"$WDA" -q keygen --out "$FIXT/k/license/lic" >/dev/null
for v in 4.02:2002-06-10 4.03:2004-02-01 4.04:2006-09-15; do
	recipe e1000 "${v%%:*}" "${v#*:}" "$FIXT/r/e1000-${v%%:*}"
done
recipe mmlem 2.06 2023-05-01 "$FIXT/r/mmlem-2.06"
recipe mmlem 2.07 2026-08-01 "$FIXT/r/mmlem-2.07"
for d in "$FIXT"/r/*; do
	"$WDA" -q pack "$d" --key "$FIXT/k/repo/test.key" --out "$FIXT/srv/" >/dev/null
done
"$WDA" -q index "$FIXT/srv" --key "$FIXT/k/repo/test.key" --serial 3 >/dev/null

# $T/v (a volume), $T/k (the keys), $T/www (the repository) served on
# loopback and added to the volume as "main", its catalog stored.
setup() {
	[ -d "$T/v" ] || make_volume "$T/v"
	cp -R "$FIXT/k" "$T/k"
	mkdir -p "$T/www"
	cp -R "$FIXT/srv" "$T/www/main"
	start_fault
	URL="$URL/main/"
	w repo add main "$URL"
	assert_rc 0
	w update
	assert_rc 0
	assert_out "main: updated, serial 3, 5 packages"
}

w() { wd --root "$T/v" --keys "$T/k" "$@"; }

# Activates a key of the test licence key: drivers and acpi, issued
# 2026-01-01, expiring on EXPIRES.
activate() { # EXPIRES
	wda issue --key "$T/k/license/lic.key" --customer 7 --entitlements drivers,acpi \
		--issued 2026-01-01 --expires "$1"
	assert_rc 0
	w activate "$OUT"
	assert_rc 0
}

version_of() { # NAME: the version installed on $T/v
	WITH_VERSIONS=1 installed "$T/v" | tr ' ' '\n' | sed -n "s/^$1=//p"
}

t_the_index_lists_every_version_and_older_builds_see_the_newest() {
	idx="$FIXT/srv/INDEX"
	grep -q '^format 1$' "$idx" || fail "the index is not format 1"
	[ "$(grep -c '^package ' "$idx")" = 2 ] || fail "not one package line a name: $(cat "$idx")"
	grep -q '^package e1000 4.04 ' "$idx" || fail "the package line is not the newest e1000"
	grep -q '^package mmlem 2.07 ' "$idx" || fail "the package line is not the newest mmlem"
	[ "$(grep -c '^older e1000 ' "$idx")" = 2 ] || fail "e1000's older versions are not listed"
	grep -q '^older mmlem 2.06 ' "$idx" || fail "mmlem 2.06 is not listed"
	grep -q '^older-choose mmlem ' "$idx" && grep -q '^older-nic mmlem ' "$idx" ||
		fail "mmlem 2.06 has no older-choose/older-nic lines"
	# a build before older lines reads them as fields it passes over: the
	# rest is an index of one version a name, which this build reads too
	grep -v '^older' "$idx" | grep -v '^signature ' >"$T/old-body"
	grep -q '^choose mmlem ' "$T/old-body" && grep -q '^nic mmlem ' "$T/old-body" ||
		fail "the newest version's choose and nic lines are missing"
	wda verify "$idx" --keys "$FIXT/k"
	assert_rc 0
	assert_out "5 packages"
}

t_upgrade_and_install_at_a_version_down_and_up() {
	setup
	w install e1000=4.02
	assert_rc 0
	assert_out "Installed e1000 4.02"
	grep -q 'e1000 4.02 from the loopback' "$T/v/IBMCOM/MACS/E1000.OS2" || fail "not 4.02's file"
	w --json list
	assert_json '[(p["version"], p["upgradable"]) for p in d["packages"] if p["name"] == "e1000"] == [("4.04", True)]'
	w list --upgradable
	assert_out "installed 4.02; 4.04 from main"
	w upgrade --yes
	assert_rc 0
	assert_out "Upgraded e1000 to 4.04"
	[ "$(version_of e1000)" = 4.04 ] || fail "e1000 is not at 4.04"
	grep -q 'e1000 4.04 from the loopback' "$T/v/IBMCOM/MACS/E1000.OS2" || fail "not 4.04's file"
	# down, then up, by version
	w --yes install e1000=4.03
	assert_rc 0
	assert_out "Downgraded e1000 4.04 -> 4.03"
	grep -q 'e1000 4.03 from the loopback' "$T/v/IBMCOM/MACS/E1000.OS2" || fail "not 4.03's file"
	w install e1000=4.04
	assert_rc 0
	assert_out "e1000 4.03 -> 4.04"
	[ "$(version_of e1000)" = 4.04 ] || fail "e1000 is not at 4.04"
	w verify
	assert_rc 0
	# a version no repository has: refused, nothing written
	snap=$(snapshot "$T/v")
	w install e1000=4.05
	assert_rc 1
	assert_err "no package e1000 at version 4.05 in the repositories ('warpdrv info e1000' lists its versions)"
	[ "$(snapshot "$T/v")" = "$snap" ] || fail "a refused install changed the volume"
}

t_a_held_package_stays_at_its_version() {
	setup
	w install e1000=4.03
	assert_rc 0
	w hold e1000
	assert_rc 0
	snap=$(snapshot "$T/v")
	w upgrade --yes
	assert_rc 0
	assert_out "e1000 4.03 is held: 4.04 is not installed"
	[ "$(snapshot "$T/v")" = "$snap" ] || fail "upgrading a held package changed the volume"
	w unhold e1000
	assert_rc 0
	w upgrade --yes
	assert_rc 0
	assert_out "Upgraded e1000 to 4.04"
}

t_a_lapsed_key_gets_the_newest_release_it_covers_from_the_remote_repository() {
	setup
	activate "$LAPSED_EXPIRES"
	w install mmlem
	assert_rc 0
	assert_out "Installed mmlem 2.06"
	# the remote's 2.06 (its own bytes, downloaded), not the bundled one
	grep -q 'mmlem 2.06 from the loopback' "$T/v/IBMCOM/MACS/MMLEM.OS2" ||
		fail "MMLEM.OS2 is not the loopback repository's 2.06"
	assert_same_file "$FIXT/srv/mmlem-2.06.wdp" "$T/v/var/cache/warpdrv/packages/mmlem-2.06.wdp"
	grep -q 'GET /main/mmlem-2.06.wdp' "$T/log" || fail "2.06 was not fetched from the server: $(cat "$T/log")"
	# 2.07 is refused by version, and upgrade leaves 2.06 with the reason
	snap=$(snapshot "$T/v")
	w install mmlem=2.07
	assert_rc 4
	assert_err "mmlem 2.07: needs the 'drivers' entitlement and was released 2026-08-01, after the subscription expired on $LAPSED_EXPIRES"
	[ "$(snapshot "$T/v")" = "$snap" ] || fail "a refused install changed the volume"
	w upgrade --yes
	assert_rc 0
	assert_out "Nothing to upgrade."
	[ "$(version_of mmlem)" = 2.06 ] || fail "mmlem is not at 2.06"
}

t_an_active_key_gets_the_newest_release() {
	setup
	activate 2099-12-31
	w install mmlem
	assert_rc 0
	assert_out "Installed mmlem 2.07"
	grep -q 'mmlem 2.07 from the loopback' "$T/v/IBMCOM/MACS/MMLEM.OS2" || fail "not 2.07's file"
	w --yes install mmlem=2.06
	assert_rc 0
	assert_out "Downgraded mmlem 2.07 -> 2.06"
	grep -q 'mmlem 2.06 from the loopback' "$T/v/IBMCOM/MACS/MMLEM.OS2" || fail "not 2.06's file"
}

t_setup_with_a_lapsed_key_plans_the_release_it_covers() {
	cp -a "$FIX/volumes/ecs21-e1000" "$T/v"
	setup
	activate "$LAPSED_EXPIRES"
	pci="lspci:$FIX/pci/ecs-guest.lspci-nn"
	snap=$(snapshot "$T/v")
	w --pci "$pci" setup --dry-run
	assert_rc 1
	assert_err "the plan needs mmlem 2.06 ($(stat -c %s "$FIXT/srv/mmlem-2.06.wdp") bytes from main)"
	[ "$(snapshot "$T/v")" = "$snap" ] || fail "setup --dry-run changed the volume"
	w --pci "$pci" --yes setup
	assert_rc 0
	[ "$(version_of mmlem)" = 2.06 ] || fail "setup did not install mmlem 2.06"
	grep -q 'mmlem 2.06 from the loopback' "$T/v/IBMCOM/MACS/MMLEM.OS2" ||
		fail "MMLEM.OS2 is not the loopback repository's 2.06"
	grep -q '^DEVICE=C:\\IBMCOM\\MACS\\MMLEM.OS2' "$T/v/CONFIG.SYS" || fail "CONFIG.SYS does not load MMLEM.OS2"
}

t_no_key_names_the_newest_release_and_installs_nothing() {
	setup
	snap=$(snapshot "$T/v")
	w install mmlem
	assert_rc 4
	assert_err "mmlem 2.07: needs the 'drivers' entitlement"
	assert_err "no subscription is activated"
	[ "$(snapshot "$T/v")" = "$snap" ] || fail "a refused install changed the volume"
}

t_info_lists_the_versions_and_which_are_allowed() {
	setup
	activate "$LAPSED_EXPIRES"
	w info mmlem
	assert_rc 0
	assert_out "Version:     2.06"
	assert_out "2.07      2026-08-01  not allowed: released after your subscription expired on $LAPSED_EXPIRES"
	assert_out "2.06      2023-05-01  allowed"
	w --json info mmlem
	assert_rc 0
	assert_json 'd["packages"][0]["version"] == "2.06" and [(v["version"], v["allowed"], v["repository"]) for v in d["packages"][0]["versions"]] == [("2.07", False, "main"), ("2.06", True, "main")]'
	assert_json 'd["packages"][0]["versions"][0]["why_not"] == "released after your subscription expired on '"$LAPSED_EXPIRES"'" and d["packages"][0]["versions"][1]["why_not"] is None'
	w --json info e1000
	assert_json '[v["version"] for v in d["packages"][0]["versions"]] == ["4.04", "4.03", "4.02"] and all(v["allowed"] for v in d["packages"][0]["versions"])'
	w install e1000=4.03
	assert_rc 0
	w info e1000=4.03
	assert_rc 0
	assert_out "Version:     4.03"
	assert_out "4.03      2004-02-01  allowed [installed]"
	# without a volume there is no key: the entitled versions say so
	wd --keys "$T/k" --repo "$URL" info mmlem
	assert_rc 0
	assert_out "not allowed: needs the 'drivers' entitlement: no subscription is activated"
	w info e1000=9
	assert_rc 1
	assert_err "no package e1000 at version 9"
}

t_one_version_twice_is_refused_naming_both_files() {
	mkdir -p "$T/dup"
	cp -R "$FIXT/k" "$T/k"
	cp "$FIXT/srv/e1000-4.02.wdp" "$FIXT/srv/e1000-4.03.wdp" "$T/dup/"
	cp "$FIXT/srv/e1000-4.02.wdp" "$T/dup/e1000-copy.wdp"
	printf 'the index before\n' >"$T/dup/INDEX"
	snap=$(snapshot "$T/dup")
	wda index "$T/dup" --key "$T/k/repo/test.key"
	assert_rc 1
	assert_err "e1000-4.02.wdp and e1000-copy.wdp are both e1000 4.02: keep one file of each version"
	[ "$(snapshot "$T/dup")" = "$snap" ] || fail "a refused index changed the folder"
	# the same release spelt another way is the same version
	recipe e1000 4.2 2002-06-10 "$T/r42"
	rm "$T/dup/e1000-copy.wdp"
	wda pack "$T/r42" --key "$T/k/repo/test.key" --out "$T/dup/"
	assert_rc 0
	wda index "$T/dup" --key "$T/k/repo/test.key"
	assert_rc 1
	assert_err "e1000-4.02.wdp and e1000-4.2.wdp are both e1000 4.02 = 4.2"
	grep -q 'the index before' "$T/dup/INDEX" || fail "the old INDEX was replaced"
	rm "$T/dup/e1000-4.2.wdp"
	wda index "$T/dup" --key "$T/k/repo/test.key"
	assert_rc 0
	assert_out "2 packages"
}

t_a_signed_index_with_one_version_twice_is_refused() {
	setup
	cp -R "$FIXT/srv" "$T/bad"
	line=$(grep '^older e1000 4.03 ' "$T/bad/INDEX")
	printf '%s\n' "$line" | sed 's/^older e1000 4.03 /older e1000 4.3 /' >"$T/line"
	sed -i "/^older e1000 4.03 /r $T/line" "$T/bad/INDEX"
	resign "$T/bad/INDEX" "$T/k/repo/test.key"
	wda verify "$T/bad/INDEX" --keys "$T/k"
	assert_rc 3
	assert_err "older: 'e1000' 4.3 listed twice"
	# two package lines of one name
	cp "$FIXT/srv/INDEX" "$T/bad/INDEX"
	python3 - "$T/bad/INDEX" <<'PY'
import sys
p = sys.argv[1]
out, on = [], False
for l in open(p):
    if l.startswith("older e1000 4.03 "):
        l, on = "package" + l[5:], True
    elif on and l.startswith("older-") and l.split()[1] == "e1000":
        l = l[6:]
    else:
        on = False
    out.append(l)
open(p, "w").write("".join(out))
PY
	resign "$T/bad/INDEX" "$T/k/repo/test.key"
	wda verify "$T/bad/INDEX" --keys "$T/k"
	assert_rc 3
	assert_err "package: 'e1000' listed twice"
	# an older line newer than the package line
	cp "$FIXT/srv/INDEX" "$T/bad/INDEX"
	sed -i 's/^older e1000 4.03 /older e1000 4.09 /' "$T/bad/INDEX"
	resign "$T/bad/INDEX" "$T/k/repo/test.key"
	wda verify "$T/bad/INDEX" --keys "$T/k"
	assert_rc 3
	assert_err "older: 'e1000' has an older line newer than its package line"
}

# What bash offers when TAB is pressed at the end of LINE (an interactive
# bash splits its words: tests/e2e/complete_bash.py), one reply a line.
complete_bash() { # LINE
	PATH="$(dirname "$WD"):$PATH" python3 "$SRC/tests/e2e/complete_bash.py" \
		"$SRC/completion/warpdrv.bash" "$1" | sed '/^--$/d'
}

t_completion_offers_the_versions_of_a_name() {
	want=$("$WD" --json info e1000 | python3 -c 'import json,sys; print("\n".join(sorted(v["version"] for v in json.load(sys.stdin)["packages"][0]["versions"])))')
	[ -n "$want" ] || fail "info lists no version of the bundled e1000"
	# bash splits e1000=4 at the '=' (COMP_WORDBREAKS): what follows it is replaced
	[ "$(complete_bash "warpdrv install e1000=")" = "$want" ] ||
		fail "install e1000=<TAB>: $(complete_bash "warpdrv install e1000=")"
	[ "$(complete_bash "warpdrv info e1000=4.0")" = "$(echo "$want" | grep '^4\.0')" ] ||
		fail "info e1000=4.0<TAB>: $(complete_bash "warpdrv info e1000=4.0")"
}

run_tests
