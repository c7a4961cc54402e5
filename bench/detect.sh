#!/bin/sh
# warpdrv detect against `lspci -n` on this machine's own sysfs: both read the
# PCI devices; prints the median wall time of each over RUNS runs, and the ratio.
# Usage: bench/detect.sh [RUNS]   (build first: make)
set -eu
RUNS=${1:-200}
top=$(cd "$(dirname "$0")/.." && pwd)
WD=${WD:-$top/build/warpdrv}
[ -x "$WD" ] || { echo "bench/detect.sh: build first (make)" >&2; exit 1; }
command -v lspci >/dev/null || { echo "bench/detect.sh: needs lspci (apt-get install pciutils)" >&2; exit 1; }

# Median of RUNS wall times in microseconds of the command given.
median_us() {
	i=0
	while [ $i -lt "$RUNS" ]; do
		s=$(date +%s%N)
		"$@" >/dev/null
		e=$(date +%s%N)
		echo $(((e - s) / 1000))
		i=$((i + 1))
	done | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'
}

w=$(median_us "$WD" detect --pci sysfs)
l=$(median_us lspci -n)
echo "warpdrv detect: ${w} us (median of $RUNS)"
echo "lspci -n:       ${l} us (median of $RUNS)"
awk -v w="$w" -v l="$l" 'BEGIN { printf "ratio warpdrv/lspci: %.2f\n", w / l }'
