#!/usr/bin/env bash
# Read-only commands never write: after an interrupted run, list, info,
# verify, history, owns, license, repo list and check leave the volume byte for byte as it is and
# say that a transaction is pending, naming 'warpdrv recover'; check counts it
# as an error (exit 1). recover then says what it finished or undid, naming
# the command and its packages.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pkg_lib.sh"
. "$(dirname "$0")/setup_lib.sh"

# Is a transaction recorded as pending in VOLUME's database?
pending() { # VOLUME
	python3 -c 'import sqlite3,sys
print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM txn").fetchone()[0])' \
		"$1/var/lib/warpdrv/warpdrv.db"
}

# Crashes `warpdrv ARGS` on VOLUME at the first step from N on that leaves
# a transaction pending (WARPDRV_CRASH_AT), so that the tests do not hang on
# a step count.
crash_pending() { # VOLUME N ARGS...
	local v=$1 n=$2
	shift 2
	rm -rf "$T/clean"
	cp -a "$v" "$T/clean"
	while [ "$n" -lt 200 ]; do
		rm -rf "$v"
		cp -a "$T/clean" "$v"
		RC=0
		WARPDRV_CRASH_AT=$n "$WD" --yes --root "$v" "$@" >/dev/null 2>"$T/crash.err" || RC=$?
		[ "$RC" -eq 99 ] || fail "step $n: exit $RC, not the injected crash: $(cat "$T/crash.err")"
		[ "$(pending "$v")" = 1 ] && return 0
		n=$((n + 1))
	done
	fail "no step left a transaction pending"
}

# The commands the command table (ui/ui.h's wd_cmd, printed by the test
# hook WARPDRV_COMMAND_TABLE) says only read a volume: those that do not
# write, and those that write only with an option, run without it.
table_read_only() {
	WARPDRV_COMMAND_TABLE=1 "$WD" | awk -F'\t' '$2 != "none" && $3 != "writes" { print $1 }'
}

# Arguments that make each of them run on the volume; a read-only command
# the table gains without a line here fails the test.
declare -A RO_ARGS=(
	[detect]="--pci lspci:$FIX/pci/ecs-guest.lspci-nn" [check]="" [history]=""
	[list]="" [search]="e1000" [info]="e1000" [owns]='C:\CONFIG.SYS' [verify]=""
	[license]="" ["repo list"]=""
)

# Each read-only command on VOLUME: what it is meant to do, the warning, and
# not a byte changed.
read_only_all() { # VOLUME WHAT
	local v=$1 what=$2 snap c
	snap=$(snapshot "$v")
	while read -r c; do
		[ -n "${RO_ARGS[$c]+set}" ] ||
			fail "'$c' only reads (the command table): give it arguments in RO_ARGS"
		# shellcheck disable=SC2086
		wd --root "$v" $c ${RO_ARGS[$c]}
		[ "$RC" -le 5 ] || fail "$c: exit $RC: $ERR"
		[ "$(snapshot "$v")" = "$snap" ] || fail "'$c' (read-only by the table) changed the volume"
	done < <(table_read_only)
	[ "$(table_read_only | wc -l)" -ge 9 ] || fail "the command table names too few read-only commands"
	wd --root "$v" list --installed
	assert_rc 0
	assert_err "the interrupted $what is pending on this volume"
	assert_err "'warpdrv recover' finishes or undoes it"
	wd --root "$v" --json list --installed
	assert_rc 0
	assert_json '"packages" in d'
	assert_err "warpdrv recover"
	wd --root "$v" --keys "$T/k" list
	assert_rc 0
	assert_err "the interrupted $what is pending"
	wd --root "$v" history
	assert_rc 0
	assert_err "the interrupted $what is pending"
	wd --root "$v" verify
	assert_err "the interrupted $what is pending"
	wd --root "$v" owns 'C:\CONFIG.SYS'
	assert_rc 1
	assert_err "the interrupted $what is pending"
	wd --root "$v" license
	assert_err "the interrupted $what is pending"
	wd --root "$v" repo list
	assert_rc 0
	assert_err "the interrupted $what is pending"
	wd --root "$v" check
	assert_rc 1
	assert_out "error: the interrupted $what was neither finished nor undone"
	assert_out "run 'warpdrv recover' [txn-pending]"
	wd --root "$v" --json check
	assert_rc 1
	assert_json 'any(f["code"] == "txn-pending" and f["severity"] == "error" for f in d["findings"])'
	[ "$(snapshot "$v")" = "$snap" ] || fail "a read-only command changed the volume"
	[ "$(pending "$v")" = 1 ] || fail "the transaction is no longer pending"
}

t_an_interrupted_install_is_told_not_recovered_by_reading() {
	make_good_package
	make_volume "$T/v"
	crash_pending "$T/v" 3 --keys "$T/k" install "$T/good.wdp"
	read_only_all "$T/v" "install of testpkg"
	wd --root "$T/v" --keys "$T/k" info "$T/good.wdp"
	assert_rc 0
	assert_err "the interrupted install of testpkg is pending"
	wd --root "$T/v" recover
	assert_rc 0
	{ grep -qxF "Undid the interrupted install of testpkg." "$T/out" ||
		grep -qxF "Finished the interrupted install of testpkg." "$T/out"; } ||
		fail "recover does not say what it did: $OUT"
	[ "$(pending "$T/v")" = 0 ] || fail "recover left the transaction pending"
	wd --root "$T/v" list --installed
	assert_rc 0
	[ -z "$ERR" ] || fail "a warning after recover: $ERR"
	wd --root "$T/v" recover
	assert_rc 0
	assert_out "No interrupted transaction on the volume; nothing to do."
}

t_an_interrupted_setup_is_named_with_its_packages() {
	mkdir -p "$T/k"
	activated_copy "$T/v"
	listing "00:03.0 8086:100e"
	crash_pending "$T/v" 4 --pci "lspci:$T/lspci" setup
	read_only_all "$T/v" "'setup' (mmlem, acpi-psd)"
	wd --root "$T/v" --json recover
	assert_rc 0
	assert_json 'd["recovered"] and d["transaction"] == "install" and d["name"] == "setup" and d["packages"] == ["mmlem", "acpi-psd"] and d["outcome"] in ("finished", "undone")'
	[ "$(pending "$T/v")" = 0 ] || fail "recover left the transaction pending"
}

# A removal's intent is committed before its files go: recovery finishes it.
t_recover_names_what_it_finished() {
	make_good_package
	make_volume "$T/v"
	wd --root "$T/v" --keys "$T/k" install "$T/good.wdp"
	assert_rc 0
	crash_pending "$T/v" 1 remove testpkg
	read_only_all "$T/v" "removal of testpkg"
	wd --root "$T/v" recover
	assert_rc 0
	assert_out "Finished the interrupted removal of testpkg."
	wd --root "$T/v" --json list --installed
	assert_json 'd["packages"] == []'
}

run_tests
