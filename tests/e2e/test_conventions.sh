#!/usr/bin/env bash
# The conventions a user knows from apt, dnf, pacman and apk: options parsed
# as getopt_long parses them, "did you mean", usage errors that name the
# command's own help, and the rest of issue 21's front-end rules.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pkg_lib.sh"

# ---------------------------------------------------------------- options

t_bundled_short_options_are_each_option() {
	make_volume "$T/v"
	local before
	before=$(snapshot "$T/v")
	wd --root "$T/v" -n -y install e1000
	assert_rc 0
	local separate=$OUT
	wd --root "$T/v" -ny install e1000
	assert_rc 0
	[ "$OUT" = "$separate" ] || fail "-ny said other than -n -y: $OUT"
	assert_out "e1000"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "-ny (a dry run) changed the volume"
	wd --root "$T/v" -nx install e1000
	assert_rc 2
	assert_err "unknown option '-x'"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "a refused option changed the volume"
}

t_long_option_with_equals_sign() {
	make_volume "$T/v"
	wd --root="$T/v" --json list --installed
	assert_rc 0
	assert_json 'd["packages"] == []'
	wd --root "$T/v" --yes=1 install e1000
	assert_rc 2
	assert_err "option --yes takes no value"
	wd --root "$T/v" --json list --installed
	assert_json 'd["packages"] == []'
}

t_short_option_value_attached_or_next() {
	# -b32k (netio's spelling) and -b 32k both reach the block size check
	wd bench client -b64k 127.0.0.1
	assert_err "block size 64k is out of range"
	local attached=$ERR
	wd bench client -b 64k 127.0.0.1
	[ "$ERR" = "$attached" ] || fail "-b 64k and -b64k differ: $ERR / $attached"
	wd bench client -b
	assert_rc 2
	assert_err "option -b needs a value"
}

t_double_dash_ends_the_options() {
	make_volume "$T/v"
	local before
	before=$(snapshot "$T/v")
	wd --root "$T/v" list -- --installed
	assert_rc 1
	assert_err "no package matches '--installed'" # a PATTERN, not the option
	wd --root "$T/v" install -- --bogus
	[ "$RC" -ne 0 ] || fail "a package named --bogus was installed"
	assert_err "'--bogus'"
	! grep -q "unknown option" "$T/err" || fail "-- did not end the options: $ERR"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the volume changed"
}

t_mistyped_command_gets_did_you_mean() {
	wd instal e1000
	assert_rc 2
	assert_err "unknown command 'instal'; did you mean 'install'?"
	[ -z "$OUT" ] || fail "stdout not empty: $OUT"
	wd upgarde
	assert_rc 2
	assert_err "did you mean 'upgrade'?"
	wd repo lsit
	assert_rc 2
	assert_err "unknown subcommand 'lsit'; did you mean 'list'?"
	assert_err "Try 'warpdrv repo --help'."
	wd xyzzy
	assert_rc 2
	assert_err "unknown command 'xyzzy'"
	! grep -q "did you mean" "$T/err" || fail "a far word got a suggestion: $ERR"
}

t_mistyped_option_gets_did_you_mean() {
	wd list --instaled
	assert_rc 2
	assert_err "unknown option '--instaled'; did you mean '--installed'?"
	assert_err "Try 'warpdrv list --help'."
	wd --dryrun list
	assert_rc 2
	assert_err "did you mean '--dry-run'?"
}

t_an_option_the_command_does_not_take_is_refused() {
	# --label is bench import's, not bench report's (a substring match let it in)
	wd bench report --label foo --db "$T/none.db"
	assert_rc 2
	assert_err "unknown option '--label'"
	assert_err "Try 'warpdrv bench report --help'."
	wd setup --driver E1000
	assert_rc 2
	assert_err "unknown option '--driver'"
	wd configure acpi --slot 00:03.0
	assert_rc 2
	assert_err "configure acpi does not take it"
	wd bench report --help
	assert_rc 0
	assert_out "--labels A,B"
	assert_no_out "--label NAME"
}

t_json_anywhere_makes_a_usage_error_a_document() {
	wd instal e1000 --json
	assert_rc 2
	assert_json 'd["error"]["exit_code"] == 2 and "did you mean" in d["error"]["message"]'
}

t_command_help_lists_its_options() {
	wd configure nic --help
	assert_rc 0
	assert_out "Usage: warpdrv [OPTIONS] configure nic"
	for o in "--driver NAME" "--slot SLOT" "--section NAME"; do assert_out "$o"; done
	wd bench client --help
	assert_out "-b, --block SIZE"
	assert_out "-p, --port N"
	wda index --help
	assert_out "--revoke KEYID"
}

# Every usage error: exit 2, nothing on stdout, and the help of the command
# (or subcommand) it was made on named; under --json, one error document.
t_every_usage_error_exits_2_and_names_the_command_help() {
	make_volume "$T/v"
	local before n=0 c
	local -A seen=()
	before=$(snapshot "$T/v")
	while IFS='|' read -r prog help args; do
		[ -n "$prog" ] || continue
		seen[$help]=1
		local bin=$WD root=(--root "$T/v")
		[ "$prog" = a ] && bin=$WDA root=() # warpdrv-admin takes no volume
		# shellcheck disable=SC2086
		run "$bin" "${root[@]}" $args
		[ "$RC" -eq 2 ] || fail "'$args': exit $RC, wanted 2; stderr: $ERR"
		[ -z "$OUT" ] || fail "'$args': stdout: $OUT"
		grep -qF "Try '$help --help'." "$T/err" || fail "'$args' does not name '$help --help': $ERR"
		# shellcheck disable=SC2086
		run "$bin" "${root[@]}" --json $args
		[ "$RC" -eq 2 ] || fail "'--json $args': exit $RC"
		assert_json 'd["error"]["exit_code"] == 2'
		n=$((n + 1))
	done <<-'EOF'
	w|warpdrv detect|detect extra
	w|warpdrv setup|setup extra
	w|warpdrv setup|setup --driver x
	w|warpdrv configure|configure
	w|warpdrv configure|configure bogus
	w|warpdrv configure nic|configure nic extra
	w|warpdrv configure acpi|configure acpi --driver x
	w|warpdrv check|check extra
	w|warpdrv history|history extra
	w|warpdrv rollback|rollback abc
	w|warpdrv list|list a b
	w|warpdrv search|search
	w|warpdrv search|search a b
	w|warpdrv list|list --installed --upgradable
	w|warpdrv info|info
	w|warpdrv install|install
	w|warpdrv install|install --yes=1 e1000
	w|warpdrv upgrade|upgrade --bogus
	w|warpdrv hold|hold
	w|warpdrv unhold|unhold
	w|warpdrv owns|owns
	w|warpdrv remove|remove
	w|warpdrv verify|verify a b
	w|warpdrv reinstall|reinstall
	w|warpdrv clean|clean extra
	w|warpdrv recover|recover extra
	w|warpdrv activate|activate
	w|warpdrv license|license extra
	w|warpdrv deactivate|deactivate extra
	w|warpdrv repo|repo
	w|warpdrv repo add|repo add x
	w|warpdrv repo remove|repo remove
	w|warpdrv repo list|repo list extra
	w|warpdrv update|update extra
	w|warpdrv bench|bench
	w|warpdrv bench client|bench client
	w|warpdrv bench import|bench import
	w|warpdrv bench report|bench report --bogus
	w|warpdrv bench server|bench server --port 0
	w|warpdrv|frobnicate
	w|warpdrv|--frob
	a|warpdrv-admin issue|issue
	a|warpdrv-admin keygen|keygen
	a|warpdrv-admin pack|pack
	a|warpdrv-admin index|index
	a|warpdrv-admin verify|verify
	EOF
	[ "$n" -ge 40 ] || fail "only $n cases ran"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "a usage error changed the volume"
	# every command of both tables (the test hook WARPDRV_COMMAND_TABLE) has a case
	while IFS=$'\t' read -r c _; do
		[ -n "${seen["warpdrv $c"]+set}" ] || fail "warpdrv $c (the command table) has no usage error case above"
	done < <(WARPDRV_COMMAND_TABLE=1 "$WD")
	while IFS=$'\t' read -r c _; do
		[ -n "${seen["warpdrv-admin $c"]+set}" ] || fail "warpdrv-admin $c has no usage error case above"
	done < <(WARPDRV_COMMAND_TABLE=1 "$WDA")
}

# ---------------------------------------------------------------- packages

t_package_names_match_whatever_their_case() {
	make_volume "$T/v"
	wd --root "$T/v" install PCNTND
	assert_rc 0
	assert_out "Installed pcntnd"
	[ "$(installed "$T/v")" = "pcntnd" ] || fail "installed: $(installed "$T/v")"
	wd --root "$T/v" hold PcNtNd
	assert_rc 0
	wd --root "$T/v" unhold PCNTND
	assert_rc 0
	wd --root "$T/v" verify PCNTND
	assert_rc 0
	wd --root "$T/v" --yes remove PCNTND
	assert_rc 0
	[ -z "$(installed "$T/v")" ] || fail "still installed: $(installed "$T/v")"
	wd info MMLEM
	assert_rc 0
	local upper=$OUT
	wd info mmlem
	[ "$OUT" = "$upper" ] || fail "info MMLEM and info mmlem differ"
	wd --root "$T/v" install PCNTND=4.13
	assert_rc 0
	[ "$(WITH_VERSIONS=1 installed "$T/v")" = "pcntnd=4.13" ] || fail "PKG=VERSION"
}

t_search_finds_names_and_summaries() {
	wd search GIGABIT
	assert_rc 0
	assert_out "mmlem"
	assert_no_out "pcntnd"
	wd search pcnet
	assert_out "pcntnd"
	wd --json search acpi
	assert_rc 0
	assert_json '[p["name"] for p in d["packages"]] == ["acpi-psd"]'
	wd search nothing-has-this
	assert_rc 1
	assert_err "no package name or summary has 'nothing-has-this'"
	wd search
	assert_rc 2
	assert_err "Try 'warpdrv search --help'."
}

t_list_takes_a_glob() {
	wd --json list 'E*'
	assert_rc 0
	assert_json '[p["name"] for p in d["packages"]] == ["e1000"]'
	wd --json list 'pcnt?d'
	assert_json '[p["name"] for p in d["packages"]] == ["pcntnd"]'
	wd list 'zz*'
	assert_rc 1
	assert_err "no package matches 'zz*'"
	make_volume "$T/v"
	wd --root "$T/v" install e1000 pcntnd
	assert_rc 0
	wd --root "$T/v" --json list --installed 'p*'
	assert_rc 0
	assert_json '[p["name"] for p in d["packages"]] == ["pcntnd"]'
	wd list a b
	assert_rc 2
	assert_err "one PATTERN at most"
}

t_info_takes_several_packages() {
	wd info mmlem e1000
	assert_rc 0
	assert_out "Package:     mmlem"
	assert_out "Package:     e1000"
	wd --json info mmlem E1000
	assert_rc 0
	assert_json '[p["name"] for p in d["packages"]] == ["mmlem", "e1000"]'
	wd info mmlem nosuch e1000
	assert_rc 1
	assert_out "Package:     e1000"
	assert_err "no package named 'nosuch'"
	wd --json info mmlem nosuch
	assert_rc 1
	assert_json '[p["name"] for p in d["packages"]] == ["mmlem"] and d["error"]["exit_code"] == 1'
	wd --json info e1000
	assert_json '[p["name"] for p in d["packages"]] == ["e1000"]' # one package: the same shape
}

t_info_condenses_the_devices_to_models() {
	wd info mmlem
	assert_rc 0
	assert_out "VirtualBox:  82540EM (Intel PRO/1000 MT Desktop), 82543GC (Intel PRO/1000 T Server), 82545EM (Intel PRO/1000 MT Server)"
	assert_out "Devices:     33 devices, rank 1:"
	[ "$(grep -c 'rank' "$T/out")" -eq 1 ] || fail "rank said more than once: $OUT"
	[ "$(wc -l <"$T/out")" -le 20 ] || fail "not condensed: $OUT"
	wd --json info mmlem
	local ids
	ids=$(python3 -c 'import json,sys; print(" ".join(p["pci_id"] for p in json.load(open(sys.argv[1]))["packages"][0]["devices"]))' "$T/out")
	wd info mmlem
	for id in $ids; do grep -q " $id" "$T/out" || fail "device $id not listed"; done
	[ "$(echo "$ids" | wc -w)" -eq 33 ] || fail "JSON lists $(echo "$ids" | wc -w) devices"
	wd info e1000
	assert_out "Devices:     8086:100e subsystem 8086:001e (rank 2)"
	assert_out "VirtualBox:  82540EM (Intel PRO/1000 MT Desktop)"
}

# ---------------------------------------------------------------- colour

# pty OUT ERR -- CMD...: the command with stdout and stderr each on a terminal
# ("tty") or in a file; what reached the terminal is in $T/tty.
pty() {
	RC=0
	python3 "$SRC/tests/e2e/pty_run.py" "$@" >"$T/tty" || RC=$?
}
has_esc() { grep -q $'\033\[' "$1"; }

t_colour_is_decided_per_stream() {
	# both on the terminal: the error is red
	pty tty tty -- "$WD" info nosuch
	assert_rc 1
	has_esc "$T/tty" || fail "no colour on a terminal: $(cat -v "$T/tty")"
	# stderr in a file, stdout on the terminal: the file has no escape codes
	pty tty "$T/err.txt" -- "$WD" info nosuch
	assert_rc 1
	grep -q "no package named 'nosuch'" "$T/err.txt" || fail "err.txt: $(cat "$T/err.txt")"
	! has_esc "$T/err.txt" || fail "escape codes in err.txt: $(cat -v "$T/err.txt")"
	# stdout in a file, stderr on the terminal: the listing has none either
	local P=$SRC/tests/fixtures/pci/two-nics.lspci-n
	pty "$T/out.txt" tty -- "$WD" --pci "lspci:$P" detect
	assert_rc 0
	! has_esc "$T/out.txt" || fail "escape codes in out.txt: $(cat -v "$T/out.txt")"
	pty tty tty -- "$WD" --pci "lspci:$P" detect
	has_esc "$T/tty" || fail "detect on a terminal is not coloured"
}

t_no_color_term_dumb_and_the_option() {
	pty tty tty -- env NO_COLOR=1 "$WD" info nosuch
	assert_rc 1
	grep -q "no package named" "$T/tty" || fail "no message: $(cat "$T/tty")"
	! has_esc "$T/tty" || fail "colour with NO_COLOR: $(cat -v "$T/tty")"
	pty tty tty -- env TERM=dumb "$WD" info nosuch
	! has_esc "$T/tty" || fail "colour with TERM=dumb: $(cat -v "$T/tty")"
	pty tty tty -- "$WD" --color never info nosuch
	! has_esc "$T/tty" || fail "colour with --color never: $(cat -v "$T/tty")"
	pty tty tty -- env NO_COLOR=1 "$WD" --color=always info nosuch
	has_esc "$T/tty" || fail "--color always (over NO_COLOR) is not coloured"
	wd --color always info nosuch
	has_esc "$T/err" || fail "--color always into a file is not coloured"
	wd info nosuch
	! has_esc "$T/err" || fail "colour into a file by default"
	wd --color blue info nosuch
	assert_rc 2
	assert_err "--color blue: expected auto, always or never"
}

t_the_diff_is_coloured_on_a_terminal_as_git_colours_it() {
	activated_copy "$T/g"
	pty tty tty -- "$WD" --root "$T/g" --dry-run configure acpi
	assert_rc 0
	grep -q $'\033\\[32m+PSD=ACPI.PSD' "$T/tty" || fail "the added line is not green: $(cat -v "$T/tty")"
	grep -q $'\033\\[36m@@ ' "$T/tty" || fail "the hunk header is not cyan"
	grep -q $'\033\\[1m--- a/CONFIG.SYS' "$T/tty" || fail "the file header is not bold"
	wd --root "$T/g" --dry-run configure acpi
	assert_out "+PSD=ACPI.PSD"
	! has_esc "$T/out" || fail "the diff is coloured into a file: $(cat -v "$T/out")"
}

# ---------------------------------------------------------------- repo add

t_repo_add_checks_the_url_with_libcurl() {
	make_volume "$T/v"
	local before
	before=$(snapshot "$T/v")
	local u
	for u in 'https://' 'https://:443/r/' 'not a url' 'ftp://example.com/r/' 'gopher://127.0.0.1/'; do
		wd --root "$T/v" repo add t "$u"
		[ "$RC" -eq 2 ] || fail "'$u' accepted (exit $RC): $OUT"
		assert_err "Try 'warpdrv repo add --help'."
	done
	wd --root "$T/v" repo add t 'https://'
	assert_err "https://: not a URL (libcurl: No host part in the URL)"
	wd --root "$T/v" repo add t 'ftp://example.com/r/'
	assert_err "the scheme ftp is not one warpdrv reads"
	wd --root "$T/v" repo add t 'not a url'
	assert_err "is neither a URL"
	wd --root "$T/v" repo add t https://example.com/r/ --mirror 'http://'
	assert_rc 2
	assert_err "http://: not a URL"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "a refused URL changed the volume"
	wd --root "$T/v" repo add t https://example.com/r/ --mirror "file://$T"
	assert_rc 0
	mkdir "$T/folder"
	wd --root "$T/v" repo add f "$T/folder"
	assert_rc 0
}

t_repo_add_refuses_credentials_and_never_shows_a_password() {
	make_volume "$T/v"
	local before
	before=$(snapshot "$T/v")
	wd --root "$T/v" repo add t 'https://user:s3cret@example.com/r/'
	assert_rc 2
	assert_err "a user name or password in a repository URL is refused"
	assert_err "https://***@example.com/r/"
	! grep -q s3cret "$T/out" "$T/err" || fail "the password was shown: $ERR"
	wd --root "$T/v" --json repo add t https://example.com/r/ --mirror 'http://u:s3cret@m.example/'
	assert_rc 2
	! grep -q s3cret "$T/out" || fail "the password is in the JSON: $OUT"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "a refused URL changed the volume"
	# a row stored before (or planted): repo list hides its password
	wd --root "$T/v" repo add t https://example.com/r/ --mirror https://m.example/
	assert_rc 0
	python3 -c 'import sqlite3,sys
c = sqlite3.connect(sys.argv[1])
c.execute("UPDATE repository SET url = ?", ("https://old:s3cret@example.com/r/",))
c.execute("UPDATE repository_mirror SET url = ?", ("https://u:s3cret@m.example/",))
c.commit()' "$T/v/var/lib/warpdrv/warpdrv.db"
	wd --root "$T/v" repo list
	assert_rc 0
	assert_out "https://***@example.com/r/"
	assert_out "mirror https://***@m.example/"
	! grep -q s3cret "$T/out" "$T/err" || fail "repo list shows the password: $OUT"
	wd --root "$T/v" --json repo list
	assert_json 'd["repositories"][0]["url"] == "https://***@example.com/r/" and d["repositories"][0]["mirrors"] == ["https://***@m.example/"]'
}

# ---------------------------------------------------------------- confirmation

# The configured guest (ecs21-e1000, drivers and acpi activated) at $T/g.
guest() {
	activated_copy "$T/g"
	assert_rc 0
}

t_dry_run_everywhere() {
	make_volume "$T/v"
	wd --root "$T/v" install e1000
	local before
	before=$(snapshot "$T/v")
	wd --root "$T/v" -n hold e1000
	assert_rc 0
	assert_out "Would hold e1000 (--dry-run: nothing written)."
	wd --root "$T/v" -n --json unhold e1000
	assert_json 'd["packages"] == [{"name": "e1000", "held": False}] and d["dry_run"] is True'
	wd --root "$T/v" -n repo add x https://example.com/r/
	assert_rc 0
	assert_out "Would add repository x"
	wd --root "$T/v" -n install pcntnd
	assert_rc 0
	wd --root "$T/v" -n remove e1000
	assert_rc 0
	[ "$(snapshot "$T/v")" = "$before" ] || fail "a --dry-run changed the volume"
}

t_install_writing_no_configuration_does_not_ask() {
	make_volume "$T/v"
	wd --root "$T/v" install e1000 # no terminal, no --yes
	assert_rc 0
	assert_out "Installed e1000"
}

t_remove_shows_its_plan_and_refuses_without_a_terminal() {
	make_volume "$T/v"
	wd --root "$T/v" install e1000
	assert_rc 0
	local before
	before=$(snapshot "$T/v")
	wd --root "$T/v" remove e1000
	assert_rc 2
	assert_out "Remove e1000 4.02:"
	assert_out "delete"
	assert_err "remove changes the volume, and there is no terminal to ask on: add --yes to apply, or --dry-run to see the plan"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "a refused remove changed the volume"
	wd --root "$T/v" --json remove e1000
	assert_rc 2
	assert_json 'd["error"]["exit_code"] == 2 and "--yes" in d["error"]["message"]'
	wd --root "$T/v" -n remove e1000
	assert_rc 0
	[ "$(snapshot "$T/v")" = "$before" ] || fail "remove --dry-run changed the volume"
	wd --root "$T/v" -y remove e1000
	assert_rc 0
	[ -z "$(installed "$T/v")" ] || fail "not removed"
}

t_remove_asks_on_a_terminal() {
	make_volume "$T/v"
	wd --root "$T/v" install e1000
	local before
	before=$(snapshot "$T/v")
	pty tty tty n -- "$WD" --root "$T/v" remove e1000
	assert_rc 1
	grep -q "Remove e1000 4.02:" "$T/tty" || fail "no plan: $(cat "$T/tty")"
	grep -q "Remove these packages? \[y/N\]" "$T/tty" || fail "not asked: $(cat "$T/tty")"
	grep -q "nothing changed: not confirmed" "$T/tty" || fail "no refusal: $(cat "$T/tty")"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "a 'no' changed the volume"
	pty tty tty y -- "$WD" --root "$T/v" remove e1000
	assert_rc 0
	grep -q "Removed e1000" "$T/tty" || fail "not removed: $(cat "$T/tty")"
	[ -z "$(installed "$T/v")" ] || fail "still installed"
}

t_configure_and_rollback_ask() {
	guest
	local before
	before=$(snapshot "$T/g")
	wd --root "$T/g" configure acpi
	assert_rc 2
	assert_out "CONFIG.SYS" # the plan's diff
	assert_err "configure acpi changes the volume, and there is no terminal to ask on: add --yes"
	[ "$(snapshot "$T/g")" = "$before" ] || fail "a refused configure changed the volume"
	pty tty tty n -- "$WD" --root "$T/g" configure acpi
	assert_rc 1
	grep -q "Apply these changes? \[y/N\]" "$T/tty" || fail "not asked: $(cat "$T/tty")"
	[ "$(snapshot "$T/g")" = "$before" ] || fail "a 'no' changed the volume"
	wd --root "$T/g" configure acpi --dry-run
	assert_rc 0
	assert_out "Dry run: nothing was written."
	[ "$(snapshot "$T/g")" = "$before" ] || fail "--dry-run changed the volume"
	pty tty tty y -- "$WD" --root "$T/g" configure acpi
	assert_rc 0
	grep -q "PSD=ACPI.PSD" "$T/g/CONFIG.SYS" || fail "not configured"
	local configured
	configured=$(snapshot "$T/g")
	wd --root "$T/g" rollback
	assert_rc 2
	assert_err "rollback 1 changes the volume, and there is no terminal to ask on: add --yes"
	[ "$(snapshot "$T/g")" = "$configured" ] || fail "a refused rollback changed the volume"
	wd --root "$T/g" -n rollback
	assert_rc 0
	[ "$(snapshot "$T/g")" = "$configured" ] || fail "rollback --dry-run changed the volume"
	wd --root "$T/g" rollback --yes
	assert_rc 0
	! grep -q "PSD=ACPI.PSD" "$T/g/CONFIG.SYS" || fail "not rolled back"
}

t_replacing_the_activated_key_asks_a_first_activation_does_not() {
	make_volume "$T/v"
	wda issue --key "$WARPDRV_BUILD/keys/license/dev.key" --customer 7 --entitlements drivers \
		--issued 2026-01-01 --expires 2099-12-31
	local k1=$OUT
	wda issue --key "$WARPDRV_BUILD/keys/license/dev.key" --customer 8 --entitlements drivers,acpi \
		--issued 2026-01-01 --expires 2099-12-31
	local k2=$OUT
	wd --root "$T/v" activate "$k1" # no terminal: the first one does not ask
	assert_rc 0
	assert_out "Activated key"
	local before
	before=$(snapshot "$T/v")
	wd --root "$T/v" activate "$k2"
	assert_rc 2
	assert_out "would replace the activated key"
	assert_err "activate replaces the activated key"
	assert_err "add --yes"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "a refused activate changed the volume"
	wd --root "$T/v" -n activate "$k2"
	assert_rc 0
	[ "$(snapshot "$T/v")" = "$before" ] || fail "activate --dry-run changed the volume"
	pty tty tty n -- "$WD" --root "$T/v" activate "$k2"
	assert_rc 1
	grep -q "Replace the activated key? \[y/N\]" "$T/tty" || fail "not asked: $(cat "$T/tty")"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "a 'no' changed the volume"
	wd --root "$T/v" --yes activate "$k2"
	assert_rc 0
	assert_out "replaces key"
	wd --root "$T/v" activate "$k2" # the same key again: nothing to replace, nothing asked
	assert_rc 0
	assert_out "already the activated key"
}

# A command's option is bound to a field of its argument struct when it
# compiles (ui/ui.h's WD_OPT_*): a misspelt field, or one of another type,
# is a compile error, not a lookup that silently finds nothing.
t_an_option_bound_to_a_wrong_field_does_not_compile() {
	local cc=${CC:-cc}
	command -v "$cc" >/dev/null || skip "no C compiler"
	printf '#include "ui/ui.h"\nstruct a { const char *s; bool b; };\nconst struct wd_opt t[] = { %s, {0} };\n' \
		'WD_OPT_BOOL(struct a, b, "b", 0, "h")' >"$T/good.c"
	run "$cc" -std=c11 -I"$SRC" -c "$T/good.c" -o "$T/good.o"
	assert_rc 0
	printf '#include "ui/ui.h"\nstruct a { const char *s; bool b; };\nconst struct wd_opt t[] = { %s, {0} };\n' \
		'WD_OPT_BOOL(struct a, s, "s", 0, "h")' >"$T/type.c"
	run "$cc" -std=c11 -I"$SRC" -c "$T/type.c" -o "$T/type.o"
	[ "$RC" -ne 0 ] || fail "a flag bound to a const char * field compiled"
	printf '#include "ui/ui.h"\nstruct a { const char *s; bool b; };\nconst struct wd_opt t[] = { %s, {0} };\n' \
		'WD_OPT_STRING(struct a, sx, "s", 0, "S", "h")' >"$T/typo.c"
	run "$cc" -std=c11 -I"$SRC" -c "$T/typo.c" -o "$T/typo.o"
	[ "$RC" -ne 0 ] || fail "an option bound to a misspelt field compiled"
	assert_err "no member named"
}

run_tests
