#!/usr/bin/env bash
# warpdrv on a hostile-sized OS/2 volume: a copy of the ecs21-e1000 fixture
# whose CONFIG.SYS and PROTOCOL.INI are grown to 64 KiB under the 4 MiB each
# warpdrv reads (WD_CONFIG_FILE_MAX) with ordinary lines (REM, SET, DEVICE=,
# BASEDEV=; sections with DriverName and Bindings), and a second copy with
# 60 NIFs of 4 MB in IBMCOM\MACS. Times `check` and `setup --dry-run` (with a
# subscription, so setup replaces E1000 by MMLEM and rebinds every protocol)
# and prints each beside the floor of the work, measured in the same run:
# reading the same files and splitting them into lines (bench/line_floor.c).
# A real `setup --yes` is timed too, on a fresh copy each run. Medians of
# RUNS runs, the commands interleaved so that all meet the same load. Then the memory: check over the 60 NIFs under `ulimit -v` at the
# ceiling docs/config-files.md gives ("Limits"), with its peak RSS.
# Usage: bench/large_volume.sh [RUNS]          (build first: make)
#        WD_BEFORE=OTHER/build/warpdrv bench/large_volume.sh   also times another build
set -eu
RUNS=${1:-5}
top=$(cd "$(dirname "$0")/.." && pwd)
WD=${WD:-$top/build/warpdrv}
O=$(dirname "$WD")
FLOOR=${FLOOR:-$O/bench/line_floor}
CHECK_CEILING_KIB=${CHECK_CEILING_KIB:-65536}
for p in "$WD" "$O/warpdrv-admin" "$FLOOR"; do
	[ -x "$p" ] || { echo "bench/large_volume.sh: build first (make): no $p" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fixture=$top/tests/fixtures/volumes/ecs21-e1000
pci=lspci:$top/tests/fixtures/pci/ecs-guest.lspci-nn
# 64 KiB under the cap: setup refuses a plan that would take a file past it.
max=$(((4 << 20) - (64 << 10)))

# grow FILE KIND: appends lines of KIND (cs or pi) until FILE is just
# under 4 MiB.
grow() {
	local have
	have=$(wc -c <"$1")
	awk -v max=$((max - have)) -v kind="$2" 'BEGIN {
		n = 0
		for (i = 1; ; i++) {
			if (kind == "cs") {
				k = i % 6
				if (k == 0) l = "REM [ block " i " ]"
				else if (k == 1) l = "SET VAR" i "=C:\\APPS\\DIR" i ";C:\\OS2"
				else if (k == 2) l = "DEVICE=C:\\OS2\\BOOT\\DOS.SYS"
				else if (k == 3) l = "BASEDEV=OS2DASD.DMD"
				else if (k == 4) l = "DEVICE=C:\\APPS\\DRV" i ".SYS /Q"
				else l = "REM DEVICE=C:\\IBMCOM\\MACS\\OLD" i ".OS2"
				l = l "\r\n"
			} else {
				l = "[SEC" i "_nif]\r\n\r\n   DriverName = SEC" i "$\r\n"
				if (i % 2) l = l "   Bindings = E1000_nif\r\n"
				else l = l "   MAXSESSIONS = " i "\r\n"
				l = l "\r\n"
			}
			if (n + length(l) > max) break
			printf "%s", l
			n += length(l)
		}
	}' >>"$1"
}

# volume DIR WD: the grown fixture, with a subscription of WD's build.
volume() {
	cp -a "$fixture" "$1"
	grow "$1/CONFIG.SYS" cs
	grow "$1/IBMCOM/PROTOCOL.INI" pi
	local o key
	o=$(dirname "$2")
	key=$("$o/warpdrv-admin" -q issue --key "$o/keys/license/dev.key" --customer 1042 \
		--entitlements drivers,acpi --issued 2026-01-01 --expires 2099-12-31)
	"$2" --root "$1" activate "$key" >/dev/null
}

volume "$tmp/v" "$WD"
cp -a "$fixture" "$tmp/n"
# 60 NIFs of 4 MB (under the cap): a driver section, [FILE], then comments.
for i in $(seq 1 60); do
	{
		printf '[DRV%d]\r\nType = NDIS\r\nTitle = "Driver %d"\r\nDriverName = DRV%d$\r\n\r\n' "$i" "$i" "$i"
		printf '[FILE]\r\nName = DRV%d.OS2\r\nPath = IBMCOM\\MACS\r\n\r\n' "$i"
		head -c 3700000 /dev/zero | tr '\0' 'x' | fold -w 60 | sed 's/^/; /;s/$/\r/'
	} >"$tmp/n/IBMCOM/MACS/DRV$i.NIF"
done
files_v=("$tmp/v/CONFIG.SYS" "$tmp/v/IBMCOM/PROTOCOL.INI")
files_n=("$tmp/n/CONFIG.SYS" "$tmp/n/IBMCOM/PROTOCOL.INI" "$tmp"/n/IBMCOM/MACS/*.NIF)

# The commands work (check exits 1: the grown CONFIG.SYS names missing files).
"$WD" --root "$tmp/v" check >"$tmp/check.out" && { echo "bench: check found nothing" >&2; exit 1; }
grep -q 'errors, ' "$tmp/check.out" || { echo "bench: check failed" >&2; exit 1; }
"$WD" --root "$tmp/v" --pci "$pci" --dry-run setup >"$tmp/setup.out" 2>&1 ||
	{ echo "bench: setup --dry-run failed:" >&2; head -5 "$tmp/setup.out" >&2; exit 1; }
grep -q 'mmlem' "$tmp/setup.out" || { echo "bench: setup planned no driver change" >&2; exit 1; }
cp -a "$tmp/v" "$tmp/w"
"$WD" --root "$tmp/w" --pci "$pci" --yes setup >"$tmp/setup.out" 2>&1 ||
	{ echo "bench: setup --yes failed:" >&2; tail -5 "$tmp/setup.out" >&2; exit 1; }

time_us() {
	local s e
	s=$EPOCHREALTIME
	"$@" >/dev/null 2>&1 || true
	e=$EPOCHREALTIME
	echo $((${e/./} - ${s/./}))
}

# Every command of the table in turn, RUNS times; prints "name median_us".
medians() {
	local i
	for ((i = 0; i < RUNS; i++)); do
		echo "floor_v $(time_us "$FLOOR" "${files_v[@]}")"
		echo "check_v $(time_us "$WD" --root "$tmp/v" check)"
		echo "setup_v $(time_us "$WD" --root "$tmp/v" --pci "$pci" --dry-run setup)"
		rm -rf "$tmp/w"
		cp -a "$tmp/v" "$tmp/w"
		echo "setup_w $(time_us "$WD" --root "$tmp/w" --pci "$pci" --yes setup)"
		echo "floor_n $(time_us "$FLOOR" "${files_n[@]}")"
		echo "check_n $(time_us "$WD" --root "$tmp/n" check)"
	done | awk '{t[$1, ++n[$1]] = $2}
	function median(k,   i, j, v, c, x) {
		c = n[k]
		for (i = 1; i <= c; i++) v[i] = t[k, i]
		for (i = 2; i <= c; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { x = v[j]; v[j] = v[j - 1]; v[j - 1] = x }
		return v[int((c + 1) / 2)]
	}
	END { for (k in n) print k, median(k) }'
}

declare -A med
while read -r k v; do med[$k]=$v; done < <(medians)
ms() { awk -v u="$1" 'BEGIN { printf "%8.1f ms", u / 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%6.1f", a / b }'; }

echo "volume: tests/fixtures/volumes/ecs21-e1000 with CONFIG.SYS $(wc -c <"${files_v[0]}") bytes" \
	"($(wc -l <"${files_v[0]}") lines), PROTOCOL.INI $(wc -c <"${files_v[1]}") bytes" \
	"($(grep -c '^\[' "${files_v[1]}") sections); 60 NIFs of $(wc -c <"$tmp/n/IBMCOM/MACS/DRV1.NIF") bytes"
echo "medians of $RUNS runs                       time      x floor"
echo "floor: read + split CONFIG.SYS, PROTOCOL.INI $(ms "${med[floor_v]}")"
echo "check                                     $(ms "${med[check_v]}")  $(ratio "${med[check_v]}" "${med[floor_v]}")"
echo "setup --dry-run                           $(ms "${med[setup_v]}")  $(ratio "${med[setup_v]}" "${med[floor_v]}")"
echo "setup --yes (a fresh copy each run)       $(ms "${med[setup_w]}")  $(ratio "${med[setup_w]}" "${med[floor_v]}")"
echo "floor: read + split the 60 NIFs too       $(ms "${med[floor_n]}")"
echo "check, 60 NIFs of 4 MB                    $(ms "${med[check_n]}")  $(ratio "${med[check_n]}" "${med[floor_n]}")"

if [ -x /usr/bin/time ]; then
	rss=$(bash -c 'ulimit -v "$0" && exec /usr/bin/time -f "%M %x" "$@" 2>&1 >/dev/null' \
		"$CHECK_CEILING_KIB" "$WD" --root "$tmp/n" check | tail -1)
	echo "memory: check, 60 NIFs, under ulimit -v $CHECK_CEILING_KIB KiB: exit ${rss#* }," \
		"peak RSS ${rss%% *} KiB (ceiling $CHECK_CEILING_KIB KiB of address space)"
fi

if [ -n "${WD_BEFORE:-}" ]; then
	volume "$tmp/b" "$WD_BEFORE"
	cp -a "$tmp/n" "$tmp/nb"
	tb=$(time_us "$WD_BEFORE" --root "$tmp/b" check)
	sb=$(time_us "$WD_BEFORE" --root "$tmp/b" --pci "$pci" --dry-run setup)
	echo "before ($WD_BEFORE, one run each):"
	echo "check                                     $(ms "$tb")  $(ratio "$tb" "${med[floor_v]}")"
	echo "setup --dry-run                           $(ms "$sb")  $(ratio "$sb" "${med[floor_v]}")"
	if [ -x /usr/bin/time ]; then
		rss=$(/usr/bin/time -f "%M" "$WD_BEFORE" --root "$tmp/nb" check 2>&1 >/dev/null | tail -1)
		echo "memory: check, 60 NIFs, no limit: peak RSS $rss KiB"
	fi
fi
