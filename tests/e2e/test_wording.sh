#!/usr/bin/env bash
# The smaller points of the front end: counts said in the singular for one,
# upgrade of a name no repository has, long options spelled out in full (the
# README and the man page say abbreviations are refused).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pkg_lib.sh"

t_one_is_said_in_the_singular() {
	make_volume "$T/v"
	wd --root "$T/v" repo add one http://example.com/r/ --mirror http://mirror.example.com/r/
	assert_rc 0
	assert_out "Added repository one: http://example.com/r/ (1 mirror)."
	wd --root "$T/v" repo add none http://example.org/r/
	assert_out "(0 mirrors)."
	make_key
	make_recipe
	mkdir -p "$T/r"
	wda pack "$T/recipe" --key "$T/k/repo/test.key" --out "$T/r"
	wda index "$T/r" --key "$T/k/repo/test.key" --revoke 0123456789abcdef
	assert_rc 0
	assert_out ": serial 1, 1 package, 1 revoked key."
	wda verify "$T/r/INDEX" --keys "$T/k"
	assert_out "good index, serial 1, 1 package, signed by"
	wd --root "$T/v" --keys "$T/k" --yes install "$T/r/testpkg-1.0.wdp"
	assert_rc 0
	assert_out "Installed testpkg 1.0 (3 files)."
}

t_upgrade_of_a_name_no_repository_has() {
	make_volume "$T/v"
	wd --root "$T/v" install e1000
	assert_rc 0
	local before
	before=$(snapshot "$T/v")
	wd --root "$T/v" upgrade nosuchpkg
	assert_rc 1
	assert_err "nosuchpkg is not installed, and no repository has a package of that name ('warpdrv list' shows those they have)"
	! grep -q "warpdrv install nosuchpkg" "$T/err" || fail "suggested installing what no one has: $ERR"
	wd --root "$T/v" upgrade pcntnd # a name on offer: installing it is the advice
	assert_rc 1
	assert_err "pcntnd is not installed, so it cannot be upgraded ('warpdrv install pcntnd' installs it)"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "a refused upgrade changed the volume"
}

t_abbreviated_long_options_are_refused() {
	make_volume "$T/v"
	local before
	before=$(snapshot "$T/v")
	wd --root "$T/v" --dry install e1000
	assert_rc 2
	assert_err "unknown option '--dry'"
	wd --root "$T/v" --ye install e1000
	assert_rc 2
	assert_err "unknown option '--ye'; did you mean '--yes'?"
	wd --ro "$T/v" install e1000
	assert_rc 2
	assert_err "unknown option '--ro'"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "an abbreviated option let install write"
	grep -q 'an abbreviation that' "$SRC/README.md" || fail "the README does not say so"
	grep -q 'an abbreviation' "$SRC/docs/warpdrv.1" || fail "warpdrv.1 does not say so"
}

CASES_AT_ONCE=2
run_tests
