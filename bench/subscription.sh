#!/bin/sh
# Subscription keys verified per second, beside the peer: OpenSSL's own
# Ed25519 verifications per second (`openssl speed`), which bounds it.
# Usage: bench/subscription.sh [BUILD_DIR] [N]   (after `make`)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
O=${1:-build}
case "$O" in /*) ;; *) O="$top/$O" ;; esac
N=${2:-20000}
[ -x "$O/warpdrv-admin" ] && [ -x "$O/bench/subscription_bench" ] || { echo "run make first" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp/keys/license"
openssl genpkey -algorithm ed25519 -out "$tmp/lic.key" 2>/dev/null
openssl pkey -in "$tmp/lic.key" -pubout -out "$tmp/keys/license/lic.pub"
"$O/warpdrv-admin" -q issue --key "$tmp/lic.key" --customer 1042 \
	--entitlements drivers,acpi --expires 2027-01-01 >"$tmp/key.txt"

ours=$("$O/bench/subscription_bench" "$tmp/keys" "$tmp/key.txt" "$N")
echo "warpdrv: $ours"
peer=$(openssl speed -seconds 2 ed25519 2>/dev/null | awk '/\(Ed25519\)/ && NF >= 5 {print $NF; exit}')
if [ -n "$peer" ]; then
	echo "openssl speed ed25519: $peer verifications per second"
	echo "$ours" | awk -v p="$peer" '{printf "ratio (warpdrv / openssl): %.2f\n", $1 / p}'
fi
