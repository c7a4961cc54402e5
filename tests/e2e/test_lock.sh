#!/usr/bin/env bash
# The volume's lock: how long a command waits for another process that holds
# it (--lock-wait S, or WARPDRV_LOCK_WAIT, in every build, the option first),
# and the refusal naming the holder from the process table, never from the
# lock file's text (which any process could have written).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pkg_lib.sh"

# A volume with e1000 installed (so it has its lock file), the lock then
# taken by a process that is not warpdrv and that wrote a lying text into
# the file; $HOLDER is its process id. It lets go when $T/release appears.
held_volume() {
	make_volume "$T/v"
	wd --root "$T/v" install e1000
	assert_rc 0
	python3 - "$T/v/var/lib/warpdrv/lock" "$T/release" "$T/held" <<-'PY' &
	import fcntl, os, sys, time
	fd = os.open(sys.argv[1], os.O_RDWR)
	os.ftruncate(fd, 0)
	os.write(fd, b"warpdrv install innocent\n")
	fcntl.lockf(fd, fcntl.LOCK_EX)
	open(sys.argv[3], "w").close()
	for _ in range(600):
	    if os.path.exists(sys.argv[2]):
	        break
	    time.sleep(0.05)
	PY
	HOLDER=$!
	trap 'touch "$T/release"; wait' EXIT
	for _ in $(seq 100); do [ -e "$T/held" ] && break; sleep 0.05; done
	[ -e "$T/held" ] || fail "the holder did not take the lock"
}

# Runs warpdrv and sets $SECONDS_TAKEN (tenths) too.
timed() {
	local t0 t1
	t0=$(date +%s%N)
	wd "$@"
	t1=$(date +%s%N)
	TENTHS=$(((t1 - t0) / 100000000))
}

t_busy_names_the_holder_from_the_process_table() {
	held_volume
	local before
	before=$(snapshot "$T/v" var/lib/warpdrv/lock)
	timed --root "$T/v" --lock-wait 0 install pcntnd
	assert_rc 1
	assert_err "the volume is busy: process $HOLDER ("
	grep -q "process $HOLDER ([^)]*python3[^)]* - $T/v/var/lib/warpdrv/lock" "$T/err" ||
		fail "the holder is not named by its command line: $ERR"
	assert_err "holds $T/v/var/lib/warpdrv/lock; try again when it has finished, or wait longer (--lock-wait SECONDS; waited 0 s)"
	! grep -q innocent "$T/err" || fail "the message took the lock file's word: $ERR"
	[ "$TENTHS" -lt 20 ] || fail "--lock-wait 0 waited $TENTHS tenths"
	[ "$(snapshot "$T/v" var/lib/warpdrv/lock)" = "$before" ] || fail "a busy volume was changed"
	# a reader (verify) is told the same
	wd --root "$T/v" --lock-wait 0 verify
	assert_rc 1
	assert_err "the volume is busy: process $HOLDER ("
}

t_lock_wait_option_and_variable() {
	held_volume
	timed --root "$T/v" --lock-wait 1 install pcntnd
	assert_rc 1
	assert_err "waited 1 s)"
	[ "$TENTHS" -ge 9 ] && [ "$TENTHS" -lt 30 ] || fail "--lock-wait 1 took $TENTHS tenths"
	WARPDRV_LOCK_WAIT=1 timed --root "$T/v" install pcntnd
	assert_rc 1
	assert_err "waited 1 s)"
	[ "$TENTHS" -ge 9 ] || fail "WARPDRV_LOCK_WAIT=1 took $TENTHS tenths"
	# the option comes first
	WARPDRV_LOCK_WAIT=20 timed --root "$T/v" --lock-wait=0 install pcntnd
	assert_rc 1
	assert_err "waited 0 s)"
	[ "$TENTHS" -lt 20 ] || fail "--lock-wait 0 under WARPDRV_LOCK_WAIT=20 took $TENTHS tenths"
	# the holder lets go while one waits: it goes on
	(sleep 1; touch "$T/release") &
	wd --root "$T/v" --lock-wait 20 install pcntnd
	assert_rc 0
	assert_out "Installed pcntnd 4.13"
}

t_bad_lock_wait_is_a_usage_error() {
	make_volume "$T/v"
	local before v
	before=$(snapshot "$T/v")
	for v in -1 x 86401 1.5 ""; do
		wd --root "$T/v" --lock-wait "$v" install e1000
		assert_rc 2
		assert_err "--lock-wait $v: expected seconds, a whole number from 0 to 86400"
	done
	WARPDRV_LOCK_WAIT=soon wd --root "$T/v" install e1000
	assert_rc 2
	assert_err "WARPDRV_LOCK_WAIT=soon: expected seconds, a whole number from 0 to 86400"
	WARPDRV_LOCK_WAIT=soon wd --root "$T/v" --json install e1000
	assert_rc 2
	assert_json 'd["error"]["exit_code"] == 2 and "WARPDRV_LOCK_WAIT=soon" in d["error"]["message"]'
	[ "$(snapshot "$T/v")" = "$before" ] || fail "a refused lock wait let install write"
	# warpdrv-admin takes no volume, so no lock wait
	wda --lock-wait 1 keygen --out "$T/k"
	assert_rc 2
	assert_err "unknown option '--lock-wait': it is warpdrv's, not warpdrv-admin's"
}

CASES_AT_ONCE=2
run_tests
