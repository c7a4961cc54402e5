#!/usr/bin/env bash
# The configuration file (docs/warpdrv.conf.5): defaults for the global
# options that the command line overrides, its errors naming the file and the
# line (exit 2, nothing written); and /etc/warpdrv/keys, the keys an
# administrator trusts, listed by --version, where the volume never adds one.
# /etc/warpdrv is $WARPDRV_SYSCONFDIR here (tests/e2e/lib.sh): no test reads
# the host's.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pkg_lib.sh"

PCI1="$FIX/pci/vbox-82540em.lspci-n"
PCI2="$FIX/pci/two-nics.lspci-n"

# The default file of whoever runs the tests: root's under the system
# folder, another user's under XDG_CONFIG_HOME.
default_conf() {
	if [ "$(id -u)" = 0 ]; then echo "$WARPDRV_SYSCONFDIR/warpdrv.conf"
	else echo "$XDG_CONFIG_HOME/warpdrv/warpdrv.conf"; fi
}

# A repository signed by a key of its own ($T/k), holding pcntnd 4.14.
own_repo() {
	make_key
	mkdir -p "$T/r" "$T/srv"
	cp -R "$SRC/drivers/pcntnd" "$T/r/"
	sed -i 's/^version .*/version 4.14/' "$T/r/pcntnd/MANIFEST"
	wda pack "$T/r/pcntnd" --key "$T/k/repo/test.key" --out "$T/srv/"
	assert_rc 0
	wda index "$T/srv" --key "$T/k/repo/test.key"
	assert_rc 0
}

t_tests_never_read_the_hosts_configuration() {
	wd --version
	assert_rc 0
	assert_out "trusted keys: none in $TESTTMP/etc/keys (an administrator adds a vendor's there"
	assert_out "configuration: none read"
}

t_the_file_gives_defaults_the_command_line_overrides() {
	own_repo
	local conf
	conf=$(default_conf)
	mkdir -p "$(dirname "$conf")"
	cat >"$conf" <<-C
	# a comment, then a blank line

	pci = lspci:$PCI1
	keys = $T/k
	repo = file://$T/srv/
	connect-timeout = 10
	C
	wd --version
	assert_out "configuration: $conf"
	wd detect
	assert_rc 0
	assert_out "1 network controller: 0000:00:03.0 82540EM."
	wd --pci "lspci:$PCI2" detect # the command line first
	assert_rc 0
	assert_out "2 network controllers"
	wd list # the file's repository (signed by the file's key folder), and the bundled one
	assert_rc 0
	grep -q '^pcntnd *4.14 ' "$T/out" || fail "the file's repository is not read: $OUT"
	assert_out "e1000"
	# --config names another file instead
	printf 'pci = lspci:%s\n' "$PCI2" >"$T/other.conf"
	wd --config "$T/other.conf" detect
	assert_rc 0
	assert_out "2 network controllers"
	wd --config="$T/other.conf" list
	! grep -q '^pcntnd *4.14 ' "$T/out" || fail "the default file was read beside --config: $OUT"
}

t_bad_settings_are_usage_errors_naming_the_line() {
	make_volume "$T/v"
	local before
	before=$(snapshot "$T/v")
	bad() { # TEXT MESSAGE
		printf '%s\n' "# first" "$1" >"$T/bad.conf"
		wd --config "$T/bad.conf" --root "$T/v" install e1000
		assert_rc 2
		assert_err "warpdrv: $T/bad.conf:2: $2"
		wd --config "$T/bad.conf" --root "$T/v" --json install e1000
		assert_rc 2
		assert_json 'd["error"]["exit_code"] == 2 and ":2: " in d["error"]["message"]'
	}
	bad "root = /" "'root' is not a setting of the configuration file (warpdrv.conf(5) lists them)"
	bad "yes = 1" "'yes' is not a setting of the configuration file"
	bad "just words" "expected 'name = value'"
	bad "connect-timeout = 0" "--connect-timeout 0: expected a whole number from 1 to 86400"
	bad "lock-wait = soon" "--lock-wait soon: expected seconds, a whole number from 0 to 86400"
	bad "color = blue" "--color blue: expected auto, always or never"
	bad "cacert =" "cacert has no value"
	wd --config "$T/nosuch.conf" --root "$T/v" install e1000
	assert_rc 2
	assert_err "configuration file $T/nosuch.conf: cannot open"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "a bad configuration let install write"
	# a default file that is not there is no error
	wd --root "$T/v" list --installed
	assert_rc 0
}

# The keys of /etc/warpdrv/keys are trusted and listed; the program's own
# keys are not needed (it is copied alone here, with its transfer helper),
# and a key on the volume is never trusted.
t_the_administrators_keys() {
	own_repo
	mkdir -p "$T/bin"
	cp "$WD" "$T/bin/warpdrv"
	cp "$(dirname "$WD")/warpdrv-fetch" "$T/bin/"
	make_volume "$T/v"
	mkdir -p "$T/v/var/lib/warpdrv/keys/repo"
	cp "$T/k/repo/test.pub" "$T/v/var/lib/warpdrv/keys/repo/"
	run env -u WARPDRV_DATA "$T/bin/warpdrv" --root "$T/v" --repo "file://$T/srv/" list
	assert_rc 3
	[ -z "$OUT" ] || fail "an untrusted repository was listed: $OUT"
	mkdir -p "$WARPDRV_SYSCONFDIR/keys/repo"
	cp "$T/k/repo/test.pub" "$WARPDRV_SYSCONFDIR/keys/repo/"
	run env -u WARPDRV_DATA "$T/bin/warpdrv" --version
	assert_rc 0
	assert_out "trusted keys: none bundled with the program (only the administrator's below and those of --keys DIR)"
	assert_out "trusted keys: $WARPDRV_SYSCONFDIR/keys (the administrator's)"
	rm -r "$T/v/var/lib/warpdrv/keys"
	run env -u WARPDRV_DATA "$T/bin/warpdrv" --root "$T/v" --repo "file://$T/srv/" list
	assert_rc 0
	grep -q '^pcntnd *4.14 ' "$T/out" || fail "the administrator's key was not trusted: $OUT"
	rm -r "$WARPDRV_SYSCONFDIR/keys"
}

run_tests
