#!/bin/sh
# Installs and removes one package of the bundled repository (PKG, default
# e1000) on a fresh copy of a small volume, RUNS rounds; prints the median
# wall time of install+remove, the spread (lowest to highest) and every run.
# WD_BEFORE=OTHER/build/warpdrv times another build too, in turn with this
# one in each round (its own volume), and prints the ratio. The volume's
# state is made beforehand (one install and removal, untimed), so what is
# timed is the package's work. Everything runs in a folder made under TMPDIR.
#   [PKG=NAME] [WD_BEFORE=PROGRAM] sh bench/install_bundled.sh [BUILD_DIR] [RUNS]
set -eu
# bash where there is one, for its clock (now_ms, below)
LC_ALL=C
export LC_ALL
[ -n "${BASH_VERSION:-}" ] || ! command -v bash >/dev/null || exec bash "$0" "$@"
top=$(cd "$(dirname "$0")/.." && pwd)
O=${1:-$top/build}
RUNS=${2:-21}
PKG=${PKG:-e1000}
WD="$O/warpdrv"
WB=${WD_BEFORE:-}
[ -x "$WD" ] || { echo "build warpdrv first (make)"; exit 1; }
[ -z "$WB" ] || [ -x "$WB" ] || { echo "WD_BEFORE=$WB is not a program"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# no configuration, keys or host state of this machine's
export WARPDRV_SYSCONFDIR="$work/etc" WARPDRV_HOST_STATE="$work/host" XDG_CONFIG_HOME="$work/xdg"

if [ -n "${EPOCHREALTIME:-}" ]; then
	now_ms() { e=$EPOCHREALTIME; echo $((${e%.*} * 1000 + 10#${e#*.} / 1000)); }
else
	now_ms() { date +%s%N | cut -c1-13; }
fi

template() { # PROGRAM DIR
	mkdir -p "$2/IBMCOM/MACS" "$2/OS2"
	printf 'PSD=OS2APIC.PSD\r\nDEVICE=C:\\IBMCOM\\PROTMAN.OS2 /I:C:\\IBMCOM\r\n' >"$2/CONFIG.SYS"
	"$1" -q --root "$2" --yes install "$PKG"
	"$1" -q --root "$2" --yes remove "$PKG"
}
template "$WD" "$work/tmpl"
[ -z "$WB" ] || template "$WB" "$work/tmplb"

run() { # PROGRAM TEMPLATE
	v="$work/vol"
	rm -rf "$v" && cp -a "$2" "$v"
	sync
	t0=$(now_ms)
	"$1" -q --root "$v" --yes install "$PKG"
	"$1" -q --root "$v" --yes remove "$PKG"
	echo $(($(now_ms) - t0))
}

stats() { # FILE: median, lowest-highest
	sort -n "$1" | awk '{a[NR] = $1} END {printf "%d ms (spread %d-%d)", a[int((NR + 1) / 2)], a[1], a[NR]}'
}

: >"$work/wd" && : >"$work/before"
k=0
while [ "$k" -lt "$RUNS" ]; do
	run "$WD" "$work/tmpl" >>"$work/wd"
	[ -z "$WB" ] || run "$WB" "$work/tmplb" >>"$work/before"
	k=$((k + 1))
done
echo "install+remove of the bundled $PKG, durable, median of $RUNS alternating runs:"
echo "  warpdrv: $(stats "$work/wd")   (runs: $(tr '\n' ' ' <"$work/wd"))"
if [ -n "$WB" ]; then
	echo "  before:  $(stats "$work/before")   (runs: $(tr '\n' ' ' <"$work/before")) $WB"
	w=$(sort -n "$work/wd" | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
	b=$(sort -n "$work/before" | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
	awk -v w="$w" -v b="$b" 'BEGIN { printf "ratio warpdrv/before: %.2f\n", w / b }'
fi
echo "file system: $(findmnt -no FSTYPE,OPTIONS -T "$work" 2>/dev/null || echo unknown) ($work)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
