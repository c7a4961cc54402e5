#!/usr/bin/env bash
# warpdrv detect against `lspci -n`, both reading one sysfs tree: a whole
# VirtualBox guest with four NICs (tests/fixtures/pci/vbox-full-guest.devices,
# laid out with a config file per device so that lspci reads it too), where
# warpdrv names a driver for each NIC from the bundled repository. Prints the
# median wall time of each over RUNS alternating runs and the ratio; then the
# same for warpdrv reading lspci -n's text of those devices (--pci lspci:FILE).
# WD_BEFORE=OTHER/build/warpdrv times another build too, in the same turns,
# and prints its figures beside (before and after in one run).
# Usage: bench/detect.sh [RUNS]         (build first: make)
#        BENCH_PCI=host bench/detect.sh  this machine's own /sys instead
set -eu
RUNS=${1:-200}
top=$(cd "$(dirname "$0")/.." && pwd)
WD=${WD:-$top/build/warpdrv}
WB=${WD_BEFORE:-}
[ -z "$WB" ] || [ -x "$WB" ] || { echo "bench/detect.sh: WD_BEFORE=$WB is not a program" >&2; exit 1; }
[ -x "$WD" ] || { echo "bench/detect.sh: build first (make)" >&2; exit 1; }
command -v lspci >/dev/null || { echo "bench/detect.sh: needs lspci (apt-get install pciutils)" >&2; exit 1; }

le16() { printf "\\x${1:4:2}\\x${1:2:2}"; } # 0x8086 -> 86 80

# FIXTURE DIR: DIR/bus/pci/devices/SLOT/ with the files warpdrv reads and
# the 64-byte configuration header lspci reads.
make_tree() {
	local dev=$2/bus/pci/devices slot v d sv sd cl rev
	mkdir -p "$dev"
	grep -v '^#' "$1" | while read -r slot v d sv sd cl rev; do
		mkdir "$dev/$slot"
		echo "$v" >"$dev/$slot/vendor"
		echo "$d" >"$dev/$slot/device"
		echo "$sv" >"$dev/$slot/subsystem_vendor"
		echo "$sd" >"$dev/$slot/subsystem_device"
		echo "$cl" >"$dev/$slot/class"
		echo "$rev" >"$dev/$slot/revision"
		{
			le16 "$v"; le16 "$d"; printf '\x07\x00\x00\x02'
			printf "\\x${rev:2:2}\\x${cl:6:2}\\x${cl:4:2}\\x${cl:2:2}"
			head -c 32 /dev/zero; le16 "$sv"; le16 "$sd"; head -c 16 /dev/zero
		} >"$dev/$slot/config"
	done
}

# The wall time in microseconds of the command given, timed by the shell
# itself (no process is started to read the clock).
time_us() {
	local s e
	s=$EPOCHREALTIME
	"$@" >/dev/null
	e=$EPOCHREALTIME
	echo $((${e/./} - ${s/./}))
}

# The two commands in turn, RUNS times each, so that both meet the same load
# on a shared machine (and WD_BEFORE's, with warpdrv's arguments); prints
# the median of each and its spread, lowest-highest ("W L B WS LS BS", B 0
# and BS - without WD_BEFORE).
medians_us() {
	local i
	for ((i = 0; i < RUNS; i++)); do
		echo "w $(time_us "${wd_cmd[@]}")"
		echo "l $(time_us "${lspci_cmd[@]}")"
		[ -z "$WB" ] || echo "b $(time_us "$WB" "${wd_cmd[@]:1}")"
	done | awk '{t[$1, ++n[$1]] = $2}
	function sorted(k,   i, j, c) {
		c = n[k]
		for (i = 1; i <= c; i++) v[i] = t[k, i]
		for (i = 2; i <= c; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { x = v[j]; v[j] = v[j - 1]; v[j - 1] = x }
		return c
	}
	function median(k,   c) { c = sorted(k); return v[int((c + 1) / 2)] }
	function spread(k,   c) { c = sorted(k); return v[1] "-" v[c] }
	END { print median("w"), median("l"), n["b"] ? median("b") : 0,
		spread("w"), spread("l"), n["b"] ? spread("b") : "-" }'
}

# W L B WS LS BS: warpdrv's line, lspci's, and WD_BEFORE's with its ratio.
report() {
	echo "  warpdrv detect: ${1} us (median of $RUNS, alternating; spread ${4} us)"
	echo "  lspci -n:       ${2} us (median of $RUNS, alternating; spread ${5} us)"
	awk -v w="$1" -v l="$2" 'BEGIN { printf "  ratio warpdrv/lspci: %.2f (aim: 1 or less)\n", w / l }'
	[ -z "$WB" ] || awk -v b="$3" -v l="$2" -v s="$6" \
		'BEGIN { printf "  WD_BEFORE:      %d us (spread %s us), ratio %.2f\n", b, s, b / l }'
}

if [ "${BENCH_PCI:-}" = host ]; then
	what="this machine's /sys"
	wd_cmd=("$WD" detect --pci sysfs)
	lspci_cmd=(lspci -n)
else
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	make_tree "$top/tests/fixtures/pci/vbox-full-guest.devices" "$tmp/sys"
	what="a VirtualBox guest with four NICs (tests/fixtures/pci/vbox-full-guest.devices)"
	wd_cmd=("$WD" detect --pci "sysfs:$tmp/sys/bus/pci/devices")
	lspci_cmd=(lspci -n -A linux-sysfs -O "sysfs.path=$tmp/sys/bus/pci")
	# The same devices, and drivers named (not just models).
	[ "$("${lspci_cmd[@]}" | wc -l)" = 14 ] || { echo "bench/detect.sh: lspci cannot read the fixture" >&2; exit 1; }
	out=$("${wd_cmd[@]}")
	case $out in *": driver "*) ;; *) printf 'bench/detect.sh: warpdrv names no driver:\n%s\n' "$out" >&2; exit 1 ;; esac
fi
"${wd_cmd[@]}" >/dev/null
"${lspci_cmd[@]}" >/dev/null
read -r w l b ws ls bs < <(medians_us)
echo "devices: $what"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "from sysfs:"
report "$w" "$l" "$b" "$ws" "$ls" "$bs"
# The same devices as lspci's text (what a user pastes from a guest):
# warpdrv reading that text against lspci reading the tree that made it.
text=$(mktemp)
"${lspci_cmd[@]}" >"$text"
wd_cmd=("$WD" detect --pci "lspci:$text")
"${wd_cmd[@]}" >/dev/null
read -r w l b ws ls bs < <(medians_us)
rm -f "$text"
echo "from lspci -n text:"
report "$w" "$l" "$b" "$ws" "$ls" "$bs"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
