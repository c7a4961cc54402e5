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
