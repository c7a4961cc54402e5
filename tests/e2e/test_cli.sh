#!/usr/bin/env bash
# The command-line contract: help, version, usage errors.
. "$(dirname "$0")/lib.sh"

t_version() {
	wd --version
	assert_rc 0
	[ "$(head -1 "$T/out")" = "warpdrv 0.1.0" ] || fail "version: $OUT"
	assert_out "trusted keys: "
}

t_help_lists_commands_and_exit_codes() {
	wd --help
	assert_rc 0
	assert_out "Usage: warpdrv"
	assert_out "Exit status"
	wda --help
	assert_rc 0
	assert_out "Usage: warpdrv-admin"
}

t_unknown_command_is_usage_error() {
	wd frobnicate
	assert_rc 2
	assert_err "unknown command 'frobnicate'"
	[ -z "$OUT" ] || fail "stdout not empty: $OUT"
}

t_unknown_option_is_usage_error() {
	wd --frob
	assert_rc 2
	assert_err "unknown option '--frob'"
}

t_no_command_is_usage_error() {
	wd
	assert_rc 2
	assert_err "no command given"
}

t_usage_error_under_json_is_a_document() {
	wd --json frobnicate
	assert_rc 2
	assert_json 'd["error"]["exit_code"] == 2 and "frobnicate" in d["error"]["message"]'
}

t_option_missing_value() {
	wd --root
	assert_rc 2
	assert_err "--root needs a value"
}

t_bad_boot_drive() {
	wd --boot-drive 12 --help
	assert_rc 2
	assert_err "--boot-drive 12"
}

run_tests
