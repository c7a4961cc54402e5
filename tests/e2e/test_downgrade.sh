#!/usr/bin/env bash
# A version that goes down is a downgrade wherever warpdrv tells it (the
# install's lines, its --json, a dry run's plan, history, the volume's text
# log), and install NAME=VERSION below the installed version asks first, as
# any change the user may not expect: on a terminal, or --yes; with neither
# it is refused (exit 2) and the volume is left as it was.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pkg_lib.sh"

# A repository (file://) with pcntnd 4.13 (the bundled one) and 4.14, signed
# with the build's key; a volume $T/v with it added and pcntnd 4.14 installed.
setup() {
	mkdir -p "$T/r" "$T/srv"
	cp -R "$SRC/drivers/pcntnd" "$T/r/"
	sed -i 's/^version .*/version 4.14/' "$T/r/pcntnd/MANIFEST"
	wda pack "$T/r/pcntnd" --key "$WARPDRV_BUILD/keys/repo/dev.key" --out "$T/srv/"
	assert_rc 0
	cp "$WARPDRV_BUILD/repo/pcntnd-4.13.wdp" "$T/srv/"
	wda index "$T/srv" --key "$WARPDRV_BUILD/keys/repo/dev.key"
	assert_rc 0
	make_volume "$T/v"
	wd --root "$T/v" repo add main "file://$T/srv/"
	assert_rc 0
	wd --root "$T/v" update
	assert_rc 0
	wd --root "$T/v" install pcntnd
	assert_rc 0
	assert_out "Installed pcntnd 4.14"
}

pty() {
	RC=0
	python3 "$SRC/tests/e2e/pty_run.py" "$@" >"$T/tty" || RC=$?
}

t_downgrade_without_terminal_or_yes_is_refused() {
	setup
	local before
	before=$(snapshot "$T/v")
	wd --root "$T/v" install pcntnd=4.13
	assert_rc 2
	assert_out "Downgrade pcntnd 4.14 -> 4.13:"
	assert_err "install: pcntnd 4.13 goes below the installed 4.14, and there is no terminal to ask on: add --yes to apply, or --dry-run to see the plan"
	wd --root "$T/v" --json install pcntnd=4.13
	assert_rc 2
	assert_json 'd["error"]["exit_code"] == 2 and "goes below the installed 4.14, and --json asks nothing" in d["error"]["message"]'
	[ "$(snapshot "$T/v")" = "$before" ] || fail "a refused downgrade changed the volume"
}

t_downgrade_asks_on_a_terminal() {
	setup
	local before
	before=$(snapshot "$T/v")
	pty tty tty n -- "$WD" --root "$T/v" install pcntnd=4.13
	assert_rc 1
	grep -q "Downgrade this package? \[y/N\]" "$T/tty" || fail "not asked: $(cat "$T/tty")"
	grep -q "nothing changed: not confirmed" "$T/tty" || fail "a no: $(cat "$T/tty")"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "a downgrade answered no changed the volume"
	pty tty tty y -- "$WD" --root "$T/v" install pcntnd=4.13
	assert_rc 0
	grep -q "Downgraded pcntnd 4.14 -> 4.13 (2 files)." "$T/tty" || fail "a yes: $(cat "$T/tty")"
	[ "$(WITH_VERSIONS=1 installed "$T/v")" = "pcntnd=4.13" ] || fail "not downgraded"
}

t_downgrade_is_named_so_everywhere() {
	setup
	local before
	before=$(snapshot "$T/v")
	wd --root "$T/v" -n install pcntnd=4.13
	assert_rc 0
	assert_out "Downgrade pcntnd 4.14 -> 4.13:"
	wd --root "$T/v" -n --json install pcntnd=4.13
	assert_rc 0
	assert_json 'd["plans"][0]["action"] == "downgrade" and d["plans"][0]["from_version"] == "4.14"'
	[ "$(snapshot "$T/v")" = "$before" ] || fail "a dry-run downgrade changed the volume"
	wd --root "$T/v" -y install pcntnd=4.13
	assert_rc 0
	assert_out "Downgraded pcntnd 4.14 -> 4.13 (2 files)."
	assert_no_out "Upgraded"
	wd --root "$T/v" --json install pcntnd=4.14 # up again: not asked
	assert_rc 0
	assert_json 'd["packages"] == [{"action": "upgrade", "name": "pcntnd", "version": "4.14", "from_version": "4.13", "file_count": 2}]'
	wd --root "$T/v" --json -y install pcntnd=4.13
	assert_rc 0
	assert_json 'd["packages"] == [{"action": "downgrade", "name": "pcntnd", "version": "4.13", "from_version": "4.14", "file_count": 2}]'
	wd --root "$T/v" history
	assert_rc 0
	assert_out "downgrade pcntnd 4.14 -> 4.13"
	assert_out "upgrade pcntnd 4.13 -> 4.14"
	[ "$(grep -c 'downgrade pcntnd' "$T/out")" = 2 ] || fail "history: $OUT"
	wd --root "$T/v" --json history
	assert_json '[r["action"] for r in d["history"]] == ["install", "downgrade", "upgrade", "downgrade"]'
	grep -q 'install | pcntnd 4.14 -> 4.13 (downgrade) | - | done' "$T/v/var/log/warpdrv.log" ||
		fail "text log: $(cat "$T/v/var/log/warpdrv.log")"
	grep -q 'install | pcntnd 4.13 -> 4.14 | - | done' "$T/v/var/log/warpdrv.log" ||
		fail "text log: $(cat "$T/v/var/log/warpdrv.log")"
}

t_same_or_newer_version_is_not_asked() {
	setup
	wd --root "$T/v" install pcntnd=4.14
	assert_rc 0
	assert_out "pcntnd 4.14 is already installed."
}

CASES_AT_ONCE=2
run_tests
