#!/bin/sh
# How often control passes between ui/ and installer/ in one run of a
# command: the programs built again with -finstrument-functions into a
# scratch folder, every function entry recorded, each function placed in its
# folder by addr2line, and each call whose caller and callee sit one in ui/
# and the other in installer/ counted (a callback ui/ gives installer/ counts
# when installer/ calls it). The figure of issue 35's closing note.
# Usage: bench/handovers.sh [-- WARPDRV-ARGS...]
#   default: setup --yes on a copy of tests/fixtures/volumes/ecs21-e1000 with
#   a subscription, the demo's PCI listing. Needs gcc and binutils (addr2line).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
cat >"$w/hook.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
static FILE *f;
__attribute__((no_instrument_function)) static void put(char c, void *fn)
{
	if (!f) {
		const char *p = getenv("WD_TRACE");
		if (!p || !(f = fopen(p, "w")))
			return;
	}
	Dl_info i;
	if (dladdr(fn, &i) && i.dli_fbase)
		fprintf(f, "%c %lx\n", c, (unsigned long)((char *)fn - (char *)i.dli_fbase));
}
__attribute__((no_instrument_function)) void __cyg_profile_func_enter(void *fn, void *site)
{
	(void)site;
	put('>', fn);
}
__attribute__((no_instrument_function)) void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)site;
	put('<', fn);
}
C
cc -O2 -c -o "$w/hook.o" "$w/hook.c"
b="$w/build"
make -C "$top" --no-print-directory -j2 O="$b" CFLAGS=-finstrument-functions \
	LDFLAGS="$w/hook.o -ldl" "$b/warpdrv" "$b/warpdrv-admin" data >/dev/null
WD="$b/warpdrv"
if [ "${1:-}" = "--" ]; then
	shift
	WD_TRACE="$w/trace" "$WD" "$@" >/dev/null || true
	what="warpdrv $*"
else
	vol="$w/volume"
	cp -a "$top/tests/fixtures/volumes/ecs21-e1000" "$vol"
	key=$("$b/warpdrv-admin" issue --key "$b/keys/license/dev.key" --customer 1 \
		--entitlements drivers,acpi --expires 2099-12-31 2>/dev/null)
	"$WD" --root "$vol" --host-state "$w/host" activate --yes "$key" >/dev/null
	WD_TRACE="$w/trace" "$WD" --root "$vol" --host-state "$w/host" \
		--pci "lspci:$top/tests/fixtures/pci/ecs-guest.lspci-nn" --yes setup >/dev/null
	what="warpdrv setup --yes (ecs21-e1000, a subscription)"
fi
# each function's folder, from its address
awk '{print $2}' "$w/trace" | sort -u >"$w/addrs"
addr2line -f -e "$WD" $(sed 's/^/0x/' "$w/addrs") | paste - - |
	awk '{ f = $2; sub(/^\.\//, "", f); split(f, p, "/"); print p[1] }' | paste "$w/addrs" - >"$w/map"
awk -v map="$w/map" '
	BEGIN { while ((getline l < map) > 0) { split(l, a, "\t"); dir[a[1]] = a[2] } }
	$1 == ">" { top = n ? st[n] : ""; d = dir[$2]; st[++n] = d
		if ((top == "ui" && d == "installer") || (top == "installer" && d == "ui")) {
			h++; if (top == "ui") down++; else up++ } }
	$1 == "<" { if (n) n-- }
	END { printf "%d handovers (%d ui/ -> installer/, %d installer/ -> ui/)\n", h, down, up }
' "$w/trace" | sed "s|^|$what: |"
