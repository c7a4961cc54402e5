# Shared by the setup tests: fixture volumes, a subscription, PCI listings.
# Sourced after lib.sh; every function works in $T.
VOLS="$FIX/volumes"
LICENSE_KEY="${WARPDRV_BUILD:?}/keys/license/dev.key"

# A fresh copy of a fixture volume at $T/v, and of it at $T/orig.
volume() { # NAME
	rm -rf "$T/v" "$T/orig"
	cp -a "$VOLS/$1" "$T/v"
	cp -a "$T/v" "$T/orig"
}

# Activates a subscription with the given entitlements on $T/v.
subscribe() { # ENTITLEMENTS
	wda issue --key "$LICENSE_KEY" --customer 1042 --entitlements "$1" \
		--issued 2026-01-01 --expires 2099-12-31
	assert_rc 0
	local key=$OUT
	wd --root "$T/v" activate "$key"
	assert_rc 0
	rm -rf "$T/orig"
	cp -a "$T/v" "$T/orig"
}

# A PCI listing (lspci -n) of a VirtualBox guest at $T/lspci with the NICs
# given as "SLOT VENDOR:DEVICE [REV]" (revision 02 when not given).
listing() { # NIC...
	{
		echo "00:00.0 0600: 8086:1237 (rev 02)"
		echo "00:01.0 0601: 8086:7000"
		echo "00:02.0 0300: 80ee:beef"
		echo "00:04.0 0880: 80ee:cafe"
		for nic in "$@"; do
			set -- $nic
			echo "$1 0200: $2 (rev ${3:-02})"
		done
	} >"$T/lspci"
}

# The lines of a file that changed, without CR, as "-old" and "+new", sorted.
changes() { # FILE (below the volume)
	{ diff "$T/orig/$1" "$T/v/$1" || [ $? -eq 1 ]; } | sed -n 's/^< /-/p; s/^> /+/p' | tr -d '\r' | sort
}

# Asserts that exactly these lines changed in FILE (order free).
expect_changes() { # FILE LINE...
	local f=$1
	shift
	printf '%s\n' "$@" | sort >"$T/want"
	changes "$f" >"$T/got"
	cmp -s "$T/want" "$T/got" ||
		fail "$f: changed lines differ; wanted:
$(cat "$T/want")
got:
$(cat "$T/got")"
}

# Every line of the file still ends in CR LF (a final Ctrl-Z may follow).
all_crlf() { # FILE
	python3 - "$T/v/$1" <<'PY' || fail "$1: a line lost its CR LF"
import sys
parts = open(sys.argv[1], 'rb').read().split(b'\n')
bad = [i + 1 for i, l in enumerate(parts[:-1]) if not l.endswith(b'\r')]
sys.exit(1 if bad or parts[-1] not in (b'', b'\x1a') else 0)
PY
}

check_clean() {
	wd --root "$T/v" --json check
	assert_rc 0
	assert_json "[f for f in d['findings'] if f['severity'] == 'error'] == []"
}

# The boot story of a fixture through setup: $T/v after `volume NAME` (and
# `subscribe` when wanted). Runs setup, checks the postcondition's outcome
# (check clean), that a second run changes nothing, and that rollback gives
# back CONFIG.SYS and the PROTOCOL.INI byte for byte. FILES: the files the
# test compares (below the volume).
second_run_and_rollback() { # LSPCI FILE...
	local l=$1
	shift
	check_clean
	local after
	after=$(snapshot "$T/v")
	wd --root "$T/v" --pci "lspci:$l" setup --yes
	assert_rc 0
	assert_out "Nothing to do"
	assert_no_out "Done"
	[ "$(snapshot "$T/v")" = "$after" ] || fail "the second run changed the volume"
	wd --yes --root "$T/v" rollback
	assert_rc 0
	for f in "$@"; do
		assert_same_file "$T/orig/$f" "$T/v/$f"
	done
}
