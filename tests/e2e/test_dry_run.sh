#!/usr/bin/env bash
# Every command of warpdrv that writes, run with --dry-run (and --yes, which
# must not make it write either) on a configured guest: the volume's bytes
# are the same after each (warpdrv-admin's: tests/e2e/test_admin.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pkg_lib.sh"

PCI="--pci=lspci:$FIX/pci/ecs-guest.lspci-nn"

t_every_dry_run_writes_nothing() {
	activated_copy "$T/g"
	wda issue --key "$WARPDRV_BUILD/keys/license/dev.key" --customer 8 --entitlements drivers \
		--issued 2026-01-01 --expires 2099-12-31
	assert_rc 0
	local key=$OUT
	wd --root "$T/g" "$PCI" setup --yes
	assert_rc 0
	wd --root "$T/g" install pcntnd
	assert_rc 0
	wd --root "$T/g" repo add main "file://$WARPDRV_BUILD/repo/"
	assert_rc 0
	mkdir -p "$T/g/var/cache/warpdrv/packages"
	echo partial >"$T/g/var/cache/warpdrv/packages/x-1.wdp.part"
	local before c want
	before=$(snapshot "$T/g")
	while IFS='|' read -r want c; do
		[ -n "$c" ] || continue
		# shellcheck disable=SC2086
		wd --root "$T/g" -n --yes $c
		[ "$RC" -eq "$want" ] || fail "-n $c: exit $RC, wanted $want; $ERR"
		[ "$(snapshot "$T/g")" = "$before" ] || fail "-n $c changed the volume"
		# shellcheck disable=SC2086
		wd --root "$T/g" --dry-run --json --yes $c
		[ "$(snapshot "$T/g")" = "$before" ] || fail "--dry-run --json $c changed the volume"
	done <<-EOF
	0|$PCI setup
	0|$PCI configure nic
	0|configure acpi
	0|configure acpi --off
	0|rollback
	0|rollback --packages 1
	0|install e1000
	0|install e1000=4.02
	0|remove pcntnd
	0|upgrade
	0|reinstall pcntnd
	0|hold pcntnd
	0|unhold pcntnd
	0|activate $key
	0|deactivate
	0|repo add x http://example.com/r/
	0|repo remove main
	0|update
	0|clean
	0|verify --fix
	2|recover
	EOF
	grep -q "x-1.wdp.part" <(ls "$T/g/var/cache/warpdrv/packages") || fail "clean -n removed a file"
}

run_tests
