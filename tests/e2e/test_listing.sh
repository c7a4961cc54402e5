#!/usr/bin/env bash
# list and search as apt, dnf, pacman and apk show them: in name order,
# whatever order the repositories list their packages in, and stdout the
# listing alone (the download cache's size: tests/e2e/test_clean.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pkg_lib.sh"

# A repository (read first, as --repo is) whose only package sorts last:
# pcntnd 4.14; the bundled repository after it.
first_repo() {
	mkdir -p "$T/r" "$T/srv"
	cp -R "$SRC/drivers/pcntnd" "$T/r/"
	sed -i 's/^version .*/version 4.14/' "$T/r/pcntnd/MANIFEST"
	wda pack "$T/r/pcntnd" --key "$WARPDRV_BUILD/keys/repo/dev.key" --out "$T/srv/"
	assert_rc 0
	wda index "$T/srv" --key "$WARPDRV_BUILD/keys/repo/dev.key"
	assert_rc 0
}

names_sorted() { # FILE: its first words are in order, and there are some
	local names
	names=$(awk '{print $1}' "$1")
	[ -n "$names" ] || fail "nothing listed"
	[ "$names" = "$(printf '%s\n' "$names" | LC_ALL=C sort)" ] || fail "not in name order: $names"
}

t_list_and_search_in_name_order() {
	first_repo
	make_volume "$T/v"
	local before
	before=$(snapshot "$T/v")
	wd --repo "file://$T/srv/" --root "$T/v" list
	assert_rc 0
	names_sorted "$T/out"
	[ "$(awk '{print $1}' "$T/out" | tr '\n' ' ')" = "acpi-psd e1000 mmlem pcntnd " ] ||
		fail "list: $OUT"
	grep -q '^pcntnd *4.14 ' "$T/out" || fail "pcntnd not at its newest: $OUT"
	[ -z "$ERR" ] || fail "list said more than the listing: $ERR"
	wd --repo "file://$T/srv/" --json list
	assert_json '[p["name"] for p in d["packages"]] == ["acpi-psd", "e1000", "mmlem", "pcntnd"]'
	wd --repo "file://$T/srv/" search ndis
	assert_rc 0
	names_sorted "$T/out"
	[ "$(awk '{print $1}' "$T/out" | tr '\n' ' ')" = "e1000 mmlem pcntnd " ] || fail "search: $OUT"
	wd --repo "file://$T/srv/" --json search ndis
	assert_json '[p["name"] for p in d["packages"]] == ["e1000", "mmlem", "pcntnd"]'
	wd --repo "file://$T/srv/" search nosuchword
	assert_rc 1
	assert_err "no package name or summary has 'nosuchword'"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "list changed the volume"
}

CASES_AT_ONCE=2
run_tests
