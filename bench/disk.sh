#!/usr/bin/env bash
# warpdrv --disk IMAGE check against the floor of the same work: one
# libguestfs appliance started, the OS/2 volume mounted, CONFIG.SYS read,
# the appliance shut down (guestfish, one line). Both read a VDI made here
# the way tests/e2e/disk_lib.sh makes one (an MBR disk, a FAT partition,
# then the warp452-pcnet volume on JFS made with mkfs.jfs -O). Prints the
# median wall time of each over RUNS alternating runs, the ratio, and the
# appliance starts each warpdrv command makes (counted from libguestfs's
# trace of launch).
# Without KVM (or where a nested guest hangs), LIBGUESTFS_BACKEND_SETTINGS=
# force_tcg is the default here, as in the tests.
# Usage: bench/disk.sh [RUNS]         (build first: make)
set -eu
RUNS=${1:-3}
top=$(cd "$(dirname "$0")/.." && pwd)
WD=${WD:-$top/build/warpdrv}
[ -x "$WD" ] || { echo "bench/disk.sh: build first (make)" >&2; exit 1; }
command -v guestfish >/dev/null ||
	{ echo "bench/disk.sh: needs guestfish (apt-get install libguestfs-tools)" >&2; exit 1; }
export LIBGUESTFS_BACKEND=${LIBGUESTFS_BACKEND:-direct}
export LIBGUESTFS_BACKEND_SETTINGS=${LIBGUESTFS_BACKEND_SETTINGS:-force_tcg}
PATH=$PATH:/usr/sbin:/sbin

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# the disk-image helpers of the tests, with their folder
TESTTMP=$work FIX=$top/tests/fixtures
fail() { echo "bench/disk.sh: $*" >&2; exit 1; }
skip() { fail "$*"; }
. "$top/tests/e2e/disk_lib.sh"
mkdir -p "$IMG"
mbr_disk "$IMG/os2.raw"
guestfish -a "$IMG/os2.raw" run : mount /dev/sda2 / : copy-in "$VOLS/warp452-pcnet/." / \
	>/dev/null || fail "guestfish could not make the image"
qemu-img convert -O vdi "$IMG/os2.raw" "$work/os2.vdi"
rm -f "$IMG/os2.raw"
img=$work/os2.vdi

time_ms() {
	local s e
	s=$EPOCHREALTIME
	"$@" >/dev/null 2>&1 || fail "failed: $*"
	e=$EPOCHREALTIME
	echo $(((${e/./} - ${s/./}) / 1000))
}
median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

floor_cmd=(guestfish --ro -a "$img" run : mount-ro /dev/sda2 / : cat /CONFIG.SYS)
wd_cmd=("$WD" --disk "$img" check)
: >"$work/w"
: >"$work/f"
for ((i = 0; i < RUNS; i++)); do
	time_ms "${floor_cmd[@]}" >>"$work/f"
	time_ms "${wd_cmd[@]}" >>"$work/w"
done
f=$(median <"$work/f")
w=$(median <"$work/w")
# appliance starts: libguestfs traces each launch call
starts() { LIBGUESTFS_TRACE=1 "$@" 2>&1 >/dev/null | grep -c '^libguestfs: trace: launch$' || true; }
printf 'warpdrv --disk IMAGE check   %6d ms (median of %d)\n' "$w" "$RUNS"
printf 'floor (guestfish: launch, mount, cat CONFIG.SYS)   %6d ms\n' "$f"
awk -v w="$w" -v f="$f" 'BEGIN { printf "ratio %.2f (aim: 1.3 or less)\n", w / f }'
echo "appliance starts: check $(starts "${wd_cmd[@]}"), floor $(starts "${floor_cmd[@]}")"
