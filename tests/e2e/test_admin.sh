#!/usr/bin/env bash
# warpdrv-admin's own contract: every --dry-run writes nothing (the folder's
# digest before and after), warpdrv's options are refused as usage errors, and
# its --help and man page list its own options alone.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pkg_lib.sh"

# A vendor's folder: $T/w/k/repo/test.{key,pub}, the recipe, a repository
# $T/w/r with the package and an INDEX at serial 7.
vendor() {
	mkdir -p "$T/w/k/repo" "$T/w/k/license" "$T/w/r"
	wda keygen --out "$T/w/k/repo/test"
	assert_rc 0
	wda keygen --out "$T/w/k/license/test"
	assert_rc 0
	make_recipe "$T/w/recipe"
	wda pack "$T/w/recipe" --key "$T/w/k/repo/test.key" --out "$T/w/r"
	assert_rc 0
	wda index "$T/w/r" --key "$T/w/k/repo/test.key" --serial 7
	assert_rc 0
}

t_keygen_dry_run_writes_nothing() {
	vendor
	local before
	before=$(snapshot "$T/w")
	wda -n keygen --out "$T/w/k/repo/new"
	assert_rc 0
	assert_out "Would write $T/w/k/repo/new.key and $T/w/k/repo/new.pub (--dry-run: nothing written)."
	wda --dry-run --json keygen --out "$T/w/k/repo/test" # over an existing pair
	assert_rc 0
	assert_json 'd["fingerprint"] is None and d["dry_run"] is True'
	wda -n keygen --out "$T/w/nosuch/new"
	assert_rc 1
	assert_err "$T/w/nosuch/new.key: cannot create: no folder $T/w/nosuch"
	[ "$(snapshot "$T/w")" = "$before" ] || fail "keygen --dry-run changed the folder"
}

t_pack_dry_run_writes_nothing() {
	vendor
	rm "$T/w/r/testpkg-1.0.wdp"
	local before
	before=$(snapshot "$T/w")
	wda -n pack "$T/w/recipe" --key "$T/w/k/repo/test.key" --out "$T/w/r"
	assert_rc 0
	assert_out "Would pack testpkg 1.0 (3 files,"
	assert_out "into $T/w/r/testpkg-1.0.wdp (--dry-run: nothing written)."
	wda -n --json pack "$T/w/recipe" --key "$T/w/k/repo/test.key" --out "$T/w/x.wdp"
	assert_rc 0
	assert_json 'd["name"] == "testpkg" and d["file"].endswith("/x.wdp") and d["dry_run"] is True'
	[ "$(snapshot "$T/w")" = "$before" ] || fail "pack --dry-run changed the folder"
	[ ! -e "$T/w/r/testpkg-1.0.wdp" ] || fail "pack --dry-run wrote the package"
}

t_index_dry_run_keeps_the_index_and_its_serial() {
	vendor
	local before
	before=$(snapshot "$T/w")
	wda -n index "$T/w/r" --key "$T/w/k/repo/test.key"
	assert_rc 0
	assert_out "Would write $T/w/r/INDEX: serial 8, 1 package, 0 revoked keys (--dry-run: nothing written)."
	wda -n --json index "$T/w/r" --key "$T/w/k/repo/test.key" --serial 9
	assert_rc 0
	assert_json 'd["serial"] == 9 and d["package_count"] == 1 and d["dry_run"] is True'
	[ "$(snapshot "$T/w")" = "$before" ] || fail "index --dry-run changed the folder"
	grep -q '^serial 7$' "$T/w/r/INDEX" || fail "the index's serial moved: $(grep serial "$T/w/r/INDEX")"
	# the real run still writes, at the next serial
	wda index "$T/w/r" --key "$T/w/k/repo/test.key"
	assert_rc 0
	assert_out "Wrote $T/w/r/INDEX: serial 8, 1 package, 0 revoked keys."
}

t_issue_dry_run_prints_no_key() {
	vendor
	local before
	before=$(snapshot "$T/w")
	wda -n issue --key "$T/w/k/license/test.key" --customer 42 --entitlements drivers,acpi \
		--expires 2030-01-01 --issued 2026-01-01 --seats 3
	assert_rc 0
	assert_out "Would issue key id "
	assert_out "for customer 42: drivers, acpi, 2026-01-01 to 2030-01-01, 3 installations (--dry-run: the key is not printed)."
	! grep -q '^WD-' "$T/out" || fail "a dry run printed a key: $OUT"
	wda -n --json issue --key "$T/w/k/license/test.key" --customer 42 --entitlements drivers \
		--expires 2030-01-01
	assert_rc 0
	assert_json 'd["key"] is None and len(d["key_id"]) == 16 and d["dry_run"] is True'
	wda -n issue --key "$T/w/k/license/test.key" --customer 0 --entitlements drivers \
		--expires 2030-01-01
	assert_rc 2
	assert_err "issue: --customer 0: expected a number from 1 to"
	[ "$(snapshot "$T/w")" = "$before" ] || fail "issue --dry-run changed the folder"
}

t_verify_dry_run_checks_as_ever() {
	vendor
	local before
	before=$(snapshot "$T/w")
	wda -n verify "$T/w/r/INDEX" --keys "$T/w/k"
	assert_rc 0
	assert_out "good index, serial 7"
	[ "$(snapshot "$T/w")" = "$before" ] || fail "verify --dry-run changed the folder"
}

# Each option of warpdrv's alone, before and after the command: a usage
# error naming whose it is, and nothing written.
t_warpdrv_options_are_refused() {
	mkdir -p "$T/w"
	local before o
	before=$(snapshot "$T/w")
	for o in --root=/ --pci=bogus:x --pci-ids=/dev/null --repo=http://x/ --boot-drive=Q: \
		--cacert=/dev/null --connect-timeout=5 --speed-limit=5 --speed-time=5 --max-time=5 --yes; do
		wda "$o" keygen --out "$T/w/k"
		assert_rc 2
		assert_err "unknown option '$o': it is warpdrv's, not warpdrv-admin's"
		assert_err "Try 'warpdrv-admin --help'."
		wda keygen --out "$T/w/k" "${o%%=*}" "${o#*=}"
		assert_rc 2
		assert_err "unknown option '${o%%=*}': it is warpdrv's, not warpdrv-admin's"
	done
	wda -y keygen --out "$T/w/k"
	assert_rc 2
	assert_err "unknown option '-y': it is warpdrv's, not warpdrv-admin's"
	wda --json --pci bogus:x --boot-drive Q: keygen --out "$T/w/k"
	assert_rc 2
	assert_json 'd["error"]["exit_code"] == 2 and "--pci" in d["error"]["message"]'
	[ "$(snapshot "$T/w")" = "$before" ] || fail "a refused option let keygen write"
	# warpdrv still takes them
	wd --pci=bogus:x --boot-drive Q: --help
	assert_rc 0
}

t_each_help_lists_its_own_options() {
	wda --help
	assert_rc 0
	local o
	for o in --keys --json --dry-run --quiet --verbose --color --help --version; do
		assert_out "$o"
	done
	for o in --root --pci --repo --boot-drive --cacert --connect-timeout --speed-limit \
		--speed-time --max-time --yes; do
		assert_no_out "$o "
	done
	assert_out "3 integrity or trust failure."
	assert_no_out "subscription problem"
	wd --help
	assert_rc 0
	for o in --root --pci --repo --boot-drive --yes --dry-run; do
		assert_out "$o"
	done
}

# The man page of warpdrv-admin names every option its --help lists, and
# its GLOBAL OPTIONS none of warpdrv's alone (a command may have an option of
# the same name: issue --repo).
t_admin_man_page_matches_its_help() {
	wda --help
	local o
	for o in $(sed -n '/^Global options:/,/^$/p' "$T/out" | grep -o -- '--[a-z-]*'); do
		grep -qF -- "${o//-/\\-}" "$SRC/docs/warpdrv-admin.1" || fail "warpdrv-admin.1 lacks $o"
	done
	sed -n '/^\.SH GLOBAL OPTIONS/,/^\.SH EXIT/p' "$SRC/docs/warpdrv-admin.1" >"$T/globals"
	[ -s "$T/globals" ] || fail "warpdrv-admin.1 has no GLOBAL OPTIONS"
	for o in root pci repo boot-drive cacert yes lock-wait config host-state; do
		! grep -qF -- "\\-\\-${o//-/\\-}" "$T/globals" || fail "warpdrv-admin.1's global options name --$o"
	done
}

CASES_AT_ONCE=2
run_tests
