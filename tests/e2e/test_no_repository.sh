#!/usr/bin/env bash
# A warpdrv with no repository at all (copied alone, or a `make install`
# that left the development-key repository out): every command that takes
# packages from a repository says there is none and how to add one (exit 1)
# and writes nothing; what needs none (detect's devices, list --installed)
# still works. And setup's advice never tells a user to switch to the card
# the guest already has.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pkg_lib.sh"

PCI="$FIX/pci/vbox-82540em.lspci-n"
NOREPO="no repository to take packages from: none is bundled with this warpdrv, none is given with --repo, none is stored on the volume; add one with 'warpdrv --root DIR repo add NAME URL', then 'warpdrv --root DIR update' (or give --repo URL for one run)"

# The program alone (with its transfer helper, without its data) in $T/bin;
# the guest volume at $T/v.
alone() {
	mkdir -p "$T/bin"
	cp "$WD" "$T/bin/warpdrv"
	cp "$(dirname "$WD")/warpdrv-fetch" "$T/bin/"
	cp -a "$FIX/volumes/ecs21-e1000" "$T/v"
}

t_every_command_that_needs_one_says_so() {
	alone
	local before c
	before=$(snapshot "$T/v")
	while IFS= read -r c; do
		[ -n "$c" ] || continue
		# shellcheck disable=SC2086
		run env -u WARPDRV_DATA "$T/bin/warpdrv" --root "$T/v" --pci "lspci:$PCI" --yes $c
		[ "$RC" -eq 1 ] || fail "'$c': exit $RC, wanted 1; stdout: $OUT; stderr: $ERR"
		grep -qF -- "warpdrv: $NOREPO" "$T/err" || fail "'$c' does not say so: $ERR"
		# shellcheck disable=SC2086
		run env -u WARPDRV_DATA "$T/bin/warpdrv" --root "$T/v" --pci "lspci:$PCI" --yes --json $c
		[ "$RC" -eq 1 ] || fail "'--json $c': exit $RC"
		assert_json 'd["error"]["exit_code"] == 1 and d["error"]["message"].startswith("no repository to take packages from")'
	done <<-'EOF'
	list
	list --upgradable
	list e*
	search e1000
	info e1000
	install e1000
	install e1000=4.02
	upgrade
	reinstall e1000
	setup
	configure nic
	configure acpi
	update
	EOF
	[ "$(snapshot "$T/v")" = "$before" ] || fail "a command with no repository changed the volume"
}

t_what_needs_none_still_works() {
	alone
	run env -u WARPDRV_DATA "$T/bin/warpdrv" --pci "lspci:$PCI" detect
	assert_rc 0
	assert_out "1 network controller: 0000:00:03.0 82540EM."
	assert_err "warning: the driver each NIC would get is left out: $NOREPO"
	! grep -q "switch the adapter" "$T/out" || fail "detect advised a switch: $OUT"
	run env -u WARPDRV_DATA "$T/bin/warpdrv" --root "$T/v" --pci "lspci:$PCI" detect
	assert_rc 0
	assert_err "left out: no repository"
	run env -u WARPDRV_DATA "$T/bin/warpdrv" --root "$T/v" list --installed
	assert_rc 0
	# a package file needs no repository (the keys to check it, given here)
	run env -u WARPDRV_DATA "$T/bin/warpdrv" --keys "$WARPDRV_BUILD/keys" info "$WARPDRV_BUILD/repo/e1000-4.02.wdp"
	assert_rc 0
	assert_out "e1000"
}

# A repository that lacks the 82540EM's driver (only pcntnd): setup and
# detect say that no package drives it and that the repositories hold no
# driver for it, never to switch the adapter to the 82540EM it is.
t_advice_never_names_the_card_the_guest_has() {
	alone
	mkdir -p "$T/srv"
	cp "$WARPDRV_BUILD/repo/pcntnd-4.13.wdp" "$T/srv/"
	wda index "$T/srv" --key "$WARPDRV_BUILD/keys/repo/dev.key"
	assert_rc 0
	local before
	before=$(snapshot "$T/v")
	run env -u WARPDRV_DATA "$T/bin/warpdrv" --keys "$WARPDRV_BUILD/keys" --repo "file://$T/srv/" --root "$T/v" \
		--pci "lspci:$PCI" setup --yes
	assert_rc 5
	assert_err "no package drives the VirtualBox 82540EM at 0000:00:03.0: the repositories hold no driver for it ('warpdrv list' shows what they offer)"
	! grep -q "nictype" "$T/err" || fail "setup advised a switch to the card it has: $ERR"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "a refused setup changed the volume"
	run env -u WARPDRV_DATA "$T/bin/warpdrv" --keys "$WARPDRV_BUILD/keys" --repo "file://$T/srv/" --pci "lspci:$PCI" detect
	assert_rc 0
	assert_out "0000:00:03.0: no driver package: no package drives the VirtualBox 82540EM at 0000:00:03.0: the repositories hold no driver for it"
	! grep -q "nictype" "$T/out" || fail "detect advised a switch to the card it has: $OUT"
	# another model is still told the switch to the 82540EM
	printf '00:03.0 0200: 1022:2000 (rev 40)\n' >"$T/pcnet"
	run env -u WARPDRV_DATA "$T/bin/warpdrv" --keys "$WARPDRV_BUILD/keys" --repo "file://$T/srv/" --pci "lspci:$T/pcnet" detect
	assert_rc 0
	assert_out "0000:00:03.0: driver pcntnd"
	printf '00:03.0 0200: 1af4:1000\n' >"$T/virtio"
	run env -u WARPDRV_DATA "$T/bin/warpdrv" --keys "$WARPDRV_BUILD/keys" --repo "file://$T/srv/" --pci "lspci:$T/virtio" detect
	assert_rc 0
	assert_out "no package drives the VirtualBox virtio at 0000:00:03.0; switch the adapter to a supported Intel model on the host: VBoxManage modifyvm VM --nictype1 82540EM"
}

CASES_AT_ONCE=2
run_tests
