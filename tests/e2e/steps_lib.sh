# Shared by the end-to-end tests of commands that change a volume in one
# transaction (tests/e2e/test_reinstall.sh, test_undo.sh): each step made to
# fail, and a power cut after the commit. Needs lib.sh (snapshot, pending).

# Makes step 1, 2, ... of `warpdrv ARGS` fail with ENOSPC (WARPDRV_FAIL_AT=N),
# on a copy of FROM, until a run completes. A failure is not a crash: right
# after it the volume must be BEFORE (nothing pending, the message saying
# nothing was changed), or, past the point where recovery rolls forward,
# finished at once: exit 0 and AFTER. Prints the count.
fail_each_step() { # FROM BEFORE AFTER STEPS ARGS...
	local from=$1 before=$2 after=$3 steps=$4 n=1 back=0 fwd=0
	shift 4
	while :; do
		rm -rf "$T/c"
		cp -a "$from" "$T/c"
		RC=0
		WARPDRV_FAIL_AT=$n:ENOSPC "$WD" --yes --root "$T/c" "$@" >/dev/null 2>"$T/fail.err" || RC=$?
		[ "$(pending "$T/c")" = 0 ] || fail "step $n: a transaction was left pending"
		if [ "$RC" -eq 0 ] && [ "$n" -le "$steps" ]; then
			[ "$(snapshot "$T/c" var)" = "$after" ] || fail "step $n: finished, but not as after"
			fwd=$((fwd + 1))
		elif [ "$RC" -eq 0 ]; then
			break
		else
			[ "$RC" -eq 1 ] || fail "step $n: exit $RC, not 1: $(cat "$T/fail.err")"
			grep -qF "No space left on device" "$T/fail.err" || fail "step $n: the message does not name the error: $(cat "$T/fail.err")"
			grep -qF "nothing was changed" "$T/fail.err" || fail "step $n: the message does not say nothing was changed: $(cat "$T/fail.err")"
			[ "$(snapshot "$T/c" var)" = "$before" ] || fail "step $n: the volume is not as before the failure"
			back=$((back + 1))
		fi
		n=$((n + 1))
	done
	[ $((n - 1)) -eq "$steps" ] || fail "$((n - 1)) steps failed, the crash test counted $steps"
	echo "$* (ENOSPC): $((n - 1)) steps failed, $back put back at once, $fwd finished at once"
}

# A power cut just after the final commit (the LD_PRELOAD shim of
# tests/e2e/test_crash.sh puts back every -journal file whose unlink was not
# made durable): what warpdrv reported done stays done.
SHIM=${WARPDRV_BUILD:-}/lost_unlink.so
power_cut() { # FROM AFTER ARGS...
	local from=$1 after=$2
	shift 2
	[ -f "$SHIM" ] || { echo "no $SHIM: the power cut is not tried"; return 0; }
	rm -rf "$T/p"
	cp -a "$from" "$T/p"
	RC=0
	ASAN_OPTIONS=${ASAN_OPTIONS:-}:verify_asan_link_order=0 LD_PRELOAD="$SHIM" "$WD" --yes --root "$T/p" "$@" \
		>/dev/null 2>"$T/cut.err" </dev/null || RC=$?
	[ "$RC" -eq 0 ] || fail "under the shim: exit $RC: $(cat "$T/cut.err")"
	[ ! -e "$T/p/var/lib/warpdrv/warpdrv.db-journal" ] || fail "a hot journal was left"
	[ "$(snapshot "$T/p" var)" = "$after" ] || fail "after the power cut the volume is not as after"
	wd --root "$T/p" verify
	assert_rc 0
	echo "$*: survives a power cut after its commit"
}
