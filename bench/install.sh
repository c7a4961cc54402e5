#!/bin/sh
# Installs and removes a package of 500 small files with warpdrv, the same
# payload as a .deb with `dpkg --root`, and the same files with the floor
# (bench/install_floor.c: each file written under a temporary name, one
# syncfs, each renamed into place, the folder flushed; each unlinked, the
# folder flushed), all durable (dpkg without --force-unsafe-io; warpdrv
# always flushes). The floor runs twice: its unlinks one after the other, and
# from 8 threads at once (-j 8, as warpdrv issues a batch of deletes), which
# is cheaper where freeing a file's blocks waits for the device (a file
# system mounted with discard); the cheaper of the two is the floor. All run
# alternately, RUNS rounds; prints the median wall time of install+remove for
# each and the ratios warpdrv/floor (aim: 1.1 or less) and warpdrv/dpkg.
# WD_BEFORE=OTHER/build/warpdrv times another build too, in the same rounds
# (its own prepared volume). Everything runs in a folder made under TMPDIR
# (default /tmp), whose file system is printed with the figures: on ext4
# without a journal each new inode is checked against those deleted in the
# last minute, so the times grow from round to round; on one with a journal
# each flush is a journal commit. Where build/bench/no_flush.so is (make
# benches), warpdrv also runs in the same rounds with every flush skipped
# (LD_PRELOAD; not durable, a measurement only): its time splits warpdrv's
# into what the flushes cost and the rest of its own work, and its ratio to
# the floor (which does flush) is what no saving of flushes can go below.
# Where strace is, the flushes of one install+remove are counted too.
#   sh bench/install.sh [BUILD_DIR] [RUNS]
set -eu
# bash where there is one, for its clock (now_ms, below)
# (in the C locale: EPOCHREALTIME's decimal point is the locale's, "1.5" or "1,5")
LC_ALL=C
export LC_ALL
[ -n "${BASH_VERSION:-}" ] || ! command -v bash >/dev/null || exec bash "$0" "$@"
top=$(cd "$(dirname "$0")/.." && pwd)
O=${1:-$top/build}
RUNS=${2:-5}
N=500
WD="$O/warpdrv"
WDA="$O/warpdrv-admin"
command -v dpkg >/dev/null || { echo "dpkg is not installed"; exit 1; }
[ -x "$WD" ] || { echo "build warpdrv first (make)"; exit 1; }
FLOOR="$O/bench/install_floor"
[ -x "$FLOOR" ] || { echo "build the benchmark programs first (make benches)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One payload for both: N files of 200-odd bytes.
mkdir -p "$work/recipe" "$work/deb/DEBIAN" "$work/deb/bench" "$work/keys/repo"
{
	printf 'format 1\nname bench\nversion 1.0\nreleased 2024-01-01\n'
	printf 'summary %s small files\nkind psd\n' "$N"
	i=1
	while [ "$i" -le "$N" ]; do
		f=$(printf 'F%04d.TXT' "$i")
		printf 'file %s \\BENCH\\%s\n' "$f" "$f"
		i=$((i + 1))
	done
} >"$work/recipe/MANIFEST"
i=1
while [ "$i" -le "$N" ]; do
	f=$(printf 'F%04d.TXT' "$i")
	head -c 200 /dev/urandom | od -An -tx1 >"$work/recipe/$f"
	cp "$work/recipe/$f" "$work/deb/bench/$f"
	i=$((i + 1))
done
printf 'Package: bench\nVersion: 1.0\nArchitecture: all\nMaintainer: bench <b@example.org>\nDescription: %s small files\n' \
	"$N" >"$work/deb/DEBIAN/control"
"$WDA" -q keygen --out "$work/keys/repo/bench" >/dev/null
"$WDA" -q pack "$work/recipe" --key "$work/keys/repo/bench.key" --out "$work/bench.wdp"
dpkg-deb -Zgzip --root-owner-group --build "$work/deb" "$work/bench.deb" >/dev/null

# The clock in milliseconds, read by the shell itself where it can (bash's
# EPOCHREALTIME) rather than by starting date(1) and cut(1) in each turn.
if [ -n "${EPOCHREALTIME:-}" ]; then
	now_ms() { e=$EPOCHREALTIME; echo $((${e%.*} * 1000 + 10#${e#*.} / 1000)); }
else
	now_ms() { date +%s%N | cut -c1-13; }
fi

# warpdrv's volume as dpkg's root: its state made beforehand (by one install
# and removal, untimed), as dpkg's status files are, so that what is timed
# is the package's work and not the state database's creation.
mkdir -p "$work/tmpl" && printf 'REM\r\n' >"$work/tmpl/CONFIG.SYS"
"$WD" -q --root "$work/tmpl" --keys "$work/keys" install "$work/bench.wdp"
"$WD" -q --root "$work/tmpl" remove --yes bench

WB=${WD_BEFORE:-}
if [ -n "$WB" ]; then
	mkdir -p "$work/tmplb" && printf 'REM\r\n' >"$work/tmplb/CONFIG.SYS"
	"$WB" -q --root "$work/tmplb" --keys "$work/keys" install "$work/bench.wdp"
	"$WB" -q --root "$work/tmplb" remove --yes bench
fi

wd_run() { # [PROGRAM TEMPLATE PRELOAD]: PRELOAD goes to warpdrv alone, not to sync
	p=${1:-$WD} tm=${2:-$work/tmpl} pre=${3:-}
	v="$work/vol"
	rm -rf "$v" && cp -a "$tm" "$v"
	sync
	t0=$(now_ms)
	LD_PRELOAD="$pre" "$p" -q --root "$v" --keys "$work/keys" install "$work/bench.wdp"
	LD_PRELOAD="$pre" "$p" -q --root "$v" remove --yes bench
	echo $(($(now_ms) - t0))
}

dpkg_run() {
	r="$work/root"
	rm -rf "$r" && mkdir -p "$r/var/lib/dpkg/info" "$r/var/lib/dpkg/updates" "$r/var/lib/dpkg/triggers"
	: >"$r/var/lib/dpkg/status"
	: >"$r/var/lib/dpkg/available"
	sync
	t0=$(now_ms)
	dpkg --root="$r" --force-not-root --force-script-chrootless --log=/dev/null -i "$work/bench.deb" >/dev/null
	dpkg --root="$r" --force-not-root --force-script-chrootless --log=/dev/null -P bench >/dev/null
	echo $(($(now_ms) - t0))
}

floor_run() { # [-j N]
	f="$work/floor"
	rm -rf "$f"
	sync
	t0=$(now_ms)
	# shellcheck disable=SC2086 # the names, one word each
	"$FLOOR" "$@" "$work/recipe" "$f" $names
	echo $(($(now_ms) - t0))
}

names=$(cd "$work/recipe" && ls F*.TXT | tr '\n' ' ')

NOFLUSH="$O/bench/no_flush.so"
[ -f "$NOFLUSH" ] || NOFLUSH=

median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

: >"$work/wd" && : >"$work/dpkg" && : >"$work/fl" && : >"$work/flj" && : >"$work/before"
: >"$work/nf"
k=0
while [ "$k" -lt "$RUNS" ]; do
	floor_run >>"$work/fl"
	floor_run -j 8 >>"$work/flj"
	wd_run >>"$work/wd"
	dpkg_run >>"$work/dpkg"
	[ -z "$WB" ] || wd_run "$WB" "$work/tmplb" >>"$work/before"
	[ -z "$NOFLUSH" ] || wd_run "$WD" "$work/tmpl" "$NOFLUSH" >>"$work/nf" # every flush skipped
	k=$((k + 1))
done
w=$(median <"$work/wd")
d=$(median <"$work/dpkg")
fs=$(median <"$work/fl")
fj=$(median <"$work/flj")
f=$((fj < fs ? fj : fs))
echo "install+remove of $N files, durable, median of $RUNS alternating runs:"
echo "  floor, unlinks in turn:    $fs ms   (runs: $(tr '\n' ' ' <"$work/fl"))"
echo "  floor, unlinks overlapped: $fj ms   (runs: $(tr '\n' ' ' <"$work/flj"))"
echo "  floor (the cheaper): $f ms"
echo "  warpdrv: $w ms   (runs: $(tr '\n' ' ' <"$work/wd"))"
echo "  dpkg:    $d ms   (runs: $(tr '\n' ' ' <"$work/dpkg"))"
awk -v w="$w" -v d="$d" -v f="$f" -v fs="$fs" 'BEGIN {
	printf "ratio warpdrv/floor: %.2f (aim: 1.1 or less)\n", w / f
	printf "ratio warpdrv/floor with unlinks in turn: %.2f\n", w / fs
	printf "ratio warpdrv/dpkg:  %.2f\n", w / d
	printf "ratio floor/dpkg:    %.2f\n", f / d
}'
if [ -n "$WB" ]; then
	b=$(median <"$work/before")
	echo "  before:  $b ms   (runs: $(tr '\n' ' ' <"$work/before")) $WB"
	awk -v b="$b" -v f="$f" -v d="$d" 'BEGIN {
		printf "ratio before/floor:  %.2f\nratio before/dpkg:   %.2f\n", b / f, b / d }'
fi
if [ -n "$NOFLUSH" ]; then
	x=$(median <"$work/nf")
	echo "  warpdrv, every flush skipped (not durable): $x ms   (runs: $(tr '\n' ' ' <"$work/nf"))"
	awk -v w="$w" -v x="$x" -v f="$f" 'BEGIN {
		printf "  of warpdrv'"'"'s time, the flushes: %d ms; its work beyond the floor'"'"'s, unflushed: %d ms\n", w - x, x - f
		printf "ratio warpdrv without flushes/floor: %.2f (the floor flushes: no saving of flushes goes below this)\n", x / f
	}'
else
	echo "  (make benches builds $O/bench/no_flush.so, for warpdrv's time without its flushes)"
fi
if command -v strace >/dev/null; then
	count_flushes() { # PROGRAM ARGS...: flushes asked of the kernel
		strace -f -qq -o "$work/strace" -e trace=fsync,fdatasync,syncfs "$@" >/dev/null
		grep -c -E '(fsync|fdatasync|syncfs)\(' "$work/strace" || true
	}
	v="$work/vol"
	rm -rf "$v" && cp -a "$work/tmpl" "$v"
	a=$(count_flushes "$WD" -q --root "$v" --keys "$work/keys" install "$work/bench.wdp")
	b=$(count_flushes "$WD" -q --root "$v" remove --yes bench)
	rm -rf "$work/floor"
	# shellcheck disable=SC2086 # the names, one word each
	c=$(count_flushes "$FLOOR" "$work/recipe" "$work/floor" $names)
	echo "flushes of one install+remove: warpdrv $((a + b)) (install $a, remove $b), floor $c"
	if [ -n "$NOFLUSH" ]; then
		n=$(LD_PRELOAD="$NOFLUSH" count_flushes "$WD" -q --root "$v" --keys "$work/keys" install "$work/bench.wdp")
		[ "$n" = 0 ] || echo "  warning: $n flushes reached the kernel under $NOFLUSH: its figure above is not flush-free"
	fi
fi
echo "file system: $(findmnt -no FSTYPE,OPTIONS -T "$work" 2>/dev/null || echo unknown) ($work)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"

