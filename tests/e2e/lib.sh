# Sourced by every end-to-end test script. A script defines functions t_NAME
# and ends with `run_tests`; each function runs in its own subshell with
# `set -e`, `pipefail` and `inherit_errexit`, so the first failing assertion
# ends it with a FAIL line, also inside `$(...)` or on the left of a pipe.
# Environment (set by tests/run.sh): WD, WDA (the programs), WARPDRV_SRC (the
# project), WARPDRV_SAMPLES (the real OS/2 samples, read in place).
set -u -o pipefail
shopt -s inherit_errexit
: "${WD:?run through tests/run.sh}"
SRC=${WARPDRV_SRC:?}
SAMPLES=${WARPDRV_SAMPLES:-$SRC/../shared/os2/samples}
FIX="$SRC/tests/fixtures"
unset WARPDRV_ROOT NO_COLOR WARPDRV_NOW
export LC_ALL=C
TESTTMP=$(mktemp -d)
trap 'rm -rf "$TESTTMP"' EXIT
# What the host remembers of repositories (catalog/hoststate.h): the tests'
# own, never /var/lib/warpdrv; each case gets a fresh one (run_case).
export WARPDRV_HOST_STATE="$TESTTMP/host-state"
# python3 found once and called by its own path without the site module
# (the tests use the standard library alone), first on PATH for every child
# too: a version manager's shim (pyenv's is a shell script) and the site
# packages' start-up add 0.05 to 0.1 s to each of the thousands of calls the
# tests make.
if py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) && [ -x "$py" ]; then
	mkdir -p "$TESTTMP/.bin"
	printf '#!/bin/sh\nexec "%s" -S "$@"\n' "$py" >"$TESTTMP/.bin/python3"
	chmod +x "$TESTTMP/.bin/python3"
	PATH="$TESTTMP/.bin:$PATH"
fi

fail() {
	echo "    $*"
	return 1
}

# Runs a program; its stdout is in $OUT (file $T/out), stderr in $ERR, status in $RC.
run() {
	RC=0
	"$@" >"$T/out" 2>"$T/err" </dev/null || RC=$?
	OUT=$(cat "$T/out")
	ERR=$(cat "$T/err")
	return 0
}
wd() { run "$WD" "$@"; }
wda() { run "$WDA" "$@"; }

assert_rc() {
	[ "$RC" -eq "$1" ] || fail "exit status $RC, wanted $1; stdout: $OUT; stderr: $ERR"
}
assert_out() {
	grep -qF -- "$1" "$T/out" || fail "stdout lacks '$1'; stdout: $OUT; stderr: $ERR"
}
assert_no_out() {
	! grep -qF -- "$1" "$T/out" || fail "stdout has '$1'; stdout: $OUT"
}
assert_err() {
	grep -qF -- "$1" "$T/err" || fail "stderr lacks '$1'; stderr: $ERR"
}
# A Python expression over d, the JSON document on stdout.
assert_json() {
	python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
if not eval(sys.argv[2]): sys.exit("false: " + sys.argv[2] + "\n    document: " + json.dumps(d)[:2000])' \
		"$T/out" "$1" || fail "JSON check failed"
}
assert_same_file() {
	cmp -s "$1" "$2" || fail "$1 and $2 differ"
}

# A digest of every name, type, mode and byte below a folder, leaving out the
# paths given (relative to it, e.g. var: everything but warpdrv's own state):
# equal digests mean nothing there changed.
snapshot() { # DIR [PATH...]
	local dir=$1
	shift
	local prune=()
	for p in "$@"; do prune+=(-path "./$p" -prune -o); done
	# a folder's size is its file system's business (tmpfs counts entries)
	(cd "$dir" && find . "${prune[@]}" \( -type d -printf '%p %y %m\n' -o -printf '%p %y %m %s\n' \) | sort &&
		find . "${prune[@]}" -type f -print0 | sort -z | xargs -0 -r sha256sum) |
		sha256sum | cut -d' ' -f1
}

# A TCP port on loopback whose TCP and UDP (+1) are both free right now.
free_port() { python3 "$SRC/tests/http/free_port.py"; }

# How many transactions the volume's database holds pending.
pending() { # VOLUME
	sqlite3 -batch "$1/var/lib/warpdrv/warpdrv.db" 'SELECT count(*) FROM txn'
}

# The installed packages the database lists, by name (NAME=VERSION with
# WITH_VERSIONS=1).
installed() { # VOLUME
	wd --root "$1" --json list --installed
	assert_rc 0
	python3 -c 'import json,sys; print(" ".join(p["name"] + ("=" + p["version"] if sys.argv[2] == "1" else "") for p in json.load(open(sys.argv[1]))["packages"]))' "$T/out" "${WITH_VERSIONS:-0}"
}

skip() {
	echo "SKIP $CUR: $*"
	exit 0
}
need_samples() {
	[ -d "$SAMPLES" ] || skip "no samples folder at $SAMPLES"
}

# One case: its verdict line (and its log when it fails) on stdout.
run_case() { # FUNCTION
	local f=$1 rc
	T="$TESTTMP/$f"
	mkdir -p "$T"
	export WARPDRV_HOST_STATE="$T/host-state"
	CUR="$script:$f"
	(set -e -o pipefail; "$f") >"$T/log" 2>&1
	rc=$?
	if grep -q '^SKIP ' "$T/log"; then
		grep '^SKIP ' "$T/log"
	elif [ $rc -eq 0 ]; then
		echo "PASS $script:$f"
	else
		echo "FAIL $script:$f"
		sed 's/^/    /' "$T/log"
	fi
}

# Every t_ function (those matching TEST_ONLY), one after another; a script
# whose cases share nothing (no port, mount or fixed path) may set
# CASES_AT_ONCE=N before calling this to run N at a time (their verdicts
# still print in order).
run_tests() {
	script=$(basename "$0" .sh)
	local fs f i=0 n=${CASES_AT_ONCE:-1}
	fs=$(declare -F | awk '{print $3}' | grep '^t_' | grep -E -- "${TEST_ONLY:-.}")
	if [ "$n" -le 1 ]; then
		for f in $fs; do run_case "$f"; done
		return
	fi
	local pids=() outs=()
	for f in $fs; do
		mkdir -p "$TESTTMP/.out"
		run_case "$f" >"$TESTTMP/.out/$f" &
		pids+=($!)
		outs+=("$TESTTMP/.out/$f")
		if [ ${#pids[@]} -ge $((i + n)) ]; then
			wait "${pids[$i]}"
			i=$((i + 1))
		fi
	done
	wait
	for f in "${outs[@]}"; do cat "$f"; done
}
