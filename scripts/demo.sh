#!/bin/sh
# make demo: the main job on the bundled sample volume. Lays a fresh copy of an
# eComStation 2.1 guest (an 82540EM with the IBM E1000 driver configured),
# issues a demo subscription with the build's development licence key (or,
# for a build made with KEYS=DIR, the private licence key DIR/license/*.key),
# activates it, runs `warpdrv setup --yes` on the guest's PCI listing, and
# shows `warpdrv check` and the history. Run it as often as you like.
# Usage: scripts/demo.sh [BUILD_DIR [DEMO_DIR]]   (DEMO_DIR: BUILD_DIR/demo)
set -eu
O=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
case "$O" in /*) ;; *) O="$top/$O" ;; esac
WD="$O/warpdrv"
WDA="$O/warpdrv-admin"
demo=${2:-$O/demo}
vol="$demo/volume"
pci="lspci:$top/tests/fixtures/pci/ecs-guest.lspci-nn"
if [ -n "${KEYS:-}" ]; then
	lic=$(ls "$KEYS"/license/*.key 2>/dev/null | head -1)
	[ -n "$lic" ] || { echo "demo: KEYS=$KEYS has no license/*.key to issue the demo subscription with" >&2; exit 2; }
	lickind="the licence key $lic"
else
	lic="$O/keys/license/dev.key"
	lickind="the development licence key"
fi

if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then
	step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
else
	step() { printf '\n== %s\n' "$*"; }
fi

rm -rf "$demo"
mkdir -p "$demo"
cp -a "$top/tests/fixtures/volumes/ecs21-e1000" "$vol"
echo "A fresh eComStation 2.1 guest volume: $vol"

step "warpdrv detect: which NIC does the guest have?"
"$WD" --root "$vol" --pci "$pci" detect

step "warpdrv setup --dry-run, before any subscription"
"$WD" --root "$vol" --pci "$pci" --dry-run setup

step "warpdrv-admin issue: a demo subscription (drivers, acpi) from $lickind"
expires=$(date -u -d '+1 year' +%Y-%m-%d 2>/dev/null || echo 2099-12-31)
key=$("$WDA" issue --key "$lic" --customer 1 \
	--entitlements drivers,acpi --expires "$expires")
echo "$key"

step "warpdrv activate"
"$WD" --root "$vol" activate "$key"

step "warpdrv setup --yes: E1000 -> MMLEM, and the ACPI PSD"
"$WD" --root "$vol" --pci "$pci" setup --yes

step "warpdrv check on the result"
"$WD" --root "$vol" check

step "warpdrv history"
"$WD" --root "$vol" history

printf '\nThe configured volume is in %s; `warpdrv --root %s rollback` undoes the change.\n' "$vol" "$vol"
