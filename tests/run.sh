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

count() { # file: adds its PASS/FAIL/SKIP lines
	passed=$((passed + $(grep -c '^PASS ' "$1")))
	failed=$((failed + $(grep -c '^FAIL ' "$1")))
	skipped=$((skipped + $(grep -c '^SKIP ' "$1")))
}

# Unit tests: cmocka's summary lines give the counts; a binary that dies
# before its summary counts as one failure.
for t in "$O"/tests/test_*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	CMOCKA_MESSAGE_OUTPUT=stdout WARPDRV_SAMPLES="$top/../shared/os2/samples" \
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
export WARPDRV_SAMPLES="$top/../shared/os2/samples"
ls "$top"/tests/e2e/test_*.sh 2>/dev/null | xargs -r -P 2 -I{} sh -c \
	'bash "$1" >"$2/e2e.$(basename "$1")" 2>&1 || echo "FAIL $(basename "$1"): exited $?" >>"$2/e2e.$(basename "$1")"' _ {} "$log"
for f in "$log"/e2e.*; do
	[ -f "$f" ] || continue
	count "$f"
	if grep -q '^FAIL ' "$f"; then
		cat "$f"
	else
		echo "ok   e2e ${f##*/e2e.} ($(grep -c '^PASS ' "$f"))"
	fi
done

# Fuzz targets: a few seconds each over the corpus they ship with.
FUZZ_SECONDS=${FUZZ_SECONDS:-4}
for fz in "$O"/fuzz/fuzz_*; do
	[ -x "$fz" ] || continue
	name=$(basename "$fz")
	corpus="$top/tests/fuzz/corpus/${name#fuzz_}"
	work=$(mktemp -d)
	[ -d "$corpus" ] && cp -R "$corpus/." "$work/"
	# UBSan only reports and goes on unless told to stop: undefined behaviour fails too.
	if UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		"$fz" -max_total_time="$FUZZ_SECONDS" -max_len=65536 "$work" >"$log/$name" 2>&1; then
		echo "PASS fuzz $name ($(grep -o 'Done [0-9]* runs' "$log/$name" | tail -1))" | tee -a "$log/fuzz"
	else
		echo "FAIL fuzz $name" | tee -a "$log/fuzz"
		tail -40 "$log/$name" | sed 's/^/    /'
	fi
	rm -rf "$work"
done
[ -f "$log/fuzz" ] && count "$log/fuzz"

[ "$skipped" -gt 0 ] && echo "($skipped skipped)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
