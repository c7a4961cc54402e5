#!/bin/sh
# One fuzz target over a copy of its corpus for SECONDS, for tests/run.sh:
# writes the target's output to LOGDIR/NAME and its verdict (a PASS or FAIL
# line, and the output's end on a failure) to LOGDIR/verdict.NAME.
# Usage: tests/fuzz/run_one.sh TARGET LOGDIR SECONDS
set -u
fz=$1 log=$2 seconds=$3
top=$(cd "$(dirname "$0")/../.." && pwd)
name=$(basename "$fz")
corpus="$top/tests/fuzz/corpus/${name#fuzz_}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -d "$corpus" ] && cp -R "$corpus/." "$work/"
# UBSan only reports and goes on unless told to stop: undefined behaviour fails too.
if UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	"$fz" -max_total_time="$seconds" -max_len=65536 -artifact_prefix="$log/$name." "$work" \
	>"$log/$name" 2>&1; then
	echo "PASS fuzz $name ($(grep -o 'Done [0-9]* runs' "$log/$name" | tail -1))" >"$log/verdict.$name"
else
	{
		echo "FAIL fuzz $name"
		tail -40 "$log/$name" | sed 's/^/    /'
		# the input itself, since the log folder goes when the run ends
		for f in "$log/$name".*-*; do
			[ -f "$f" ] && echo "    input $(basename "$f") (base64, first 4 KiB): $(head -c 4096 "$f" | base64 -w0)"
		done
	} >"$log/verdict.$name"
fi
