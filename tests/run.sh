#!/bin/sh
# The test runner of `make check`: the cmocka unit tests, the end-to-end tests of
# the built programs, and a short run of each fuzz target over its corpus.
# Ends with "N passed, N failed"; exits non-zero on any failure or on no test.
set -u
O=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
case "$O" in /*) ;; *) O="$top/$O" ;; esac
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
passed=0
failed=0
skipped=0
start=$(date +%s)

count() { # file: adds its PASS/FAIL/SKIP lines
	passed=$((passed + $(grep -c '^PASS ' "$1")))
	failed=$((failed + $(grep -c '^FAIL ' "$1")))
	skipped=$((skipped + $(grep -c '^SKIP ' "$1")))
}

# The real OS/2 files of the extra cases (tests/e2e/lib.sh, need_samples):
# WARPDRV_SAMPLES when set (a folder that is not there runs the project's
# own fixtures alone), else the samples folder beside the clone.
samples=${WARPDRV_SAMPLES:-$top/../shared/os2/samples}

# Unit tests: cmocka's summary lines give the counts; a binary that dies
# before its summary counts as one failure.
for t in "$O"/tests/test_*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	CMOCKA_MESSAGE_OUTPUT=stdout WARPDRV_SAMPLES="$samples" \
		WARPDRV_SRC="$top" "$t" >"$log/$name" 2>&1
	rc=$?
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log/$name")
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log/$name")
	p=${p:-0}
	f=${f:-0}
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	passed=$((passed + p))
	failed=$((failed + f))
	if [ "$f" -ne 0 ]; then
		echo "FAIL unit $name"
		sed 's/^/    /' "$log/$name"
	else
		echo "ok   unit $name ($p)"
	fi
done

# End-to-end tests: each script prints PASS/FAIL/SKIP lines; run two at a time.
export WD="$O/warpdrv" WDA="$O/warpdrv-admin" WARPDRV_SRC="$top" WARPDRV_BUILD="$O"
export WARPDRV_SAMPLES="$samples"
ls "$top"/tests/e2e/test_*.sh 2>/dev/null | xargs -r -P 2 -I{} sh -c \
	'b=$(basename "$1"); s=$(date +%s); bash "$1" >"$2/e2e.$b" 2>&1 || echo "FAIL $b: exited $?" >>"$2/e2e.$b"; echo $(($(date +%s) - s)) >"$2/time.$b"' _ {} "$log"
for f in "$log"/e2e.*; do
	[ -f "$f" ] || continue
	count "$f"
	if grep -q '^FAIL ' "$f"; then
		cat "$f"
	else
		b=${f##*/e2e.}
		echo "ok   e2e $b ($(grep -c '^PASS ' "$f"), $(cat "$log/time.$b" 2>/dev/null)s)"
	fi
done

# Fuzz targets: a few seconds each over the corpus they ship with, two at a
# time (tests/fuzz/run_one.sh); the verdicts are read back in order.
FUZZ_SECONDS=${FUZZ_SECONDS:-4}
ls "$O"/fuzz/fuzz_* 2>/dev/null | xargs -r -P 2 -I{} sh "$top/tests/fuzz/run_one.sh" {} "$log" "$FUZZ_SECONDS"
for v in "$log"/verdict.*; do
	[ -f "$v" ] || continue
	cat "$v"
	grep '^PASS \|^FAIL ' "$v" >>"$log/fuzz"
done
[ -f "$log/fuzz" ] && count "$log/fuzz"

[ "$skipped" -gt 0 ] && echo "($skipped skipped)"
echo "$passed passed, $failed failed ($(($(date +%s) - start)) s)"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
