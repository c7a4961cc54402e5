#!/usr/bin/env bash
# Signals never split a transaction. A host shutting down sends SIGTERM; a
# user presses Ctrl-C (SIGINT); a terminal goes away (SIGHUP); Ctrl-\
# (SIGQUIT). Inside a transaction each is deferred: noticed before the
# commit, the change is undone at once; after it, finished. Outside one the
# run ends at once. Either way: exit 1 and "interrupted" on stderr, and the
# volume is the one before or the one after, with nothing left pending.
# WARPDRV_SIGNAL_AT=N:SIG (the test programs only) sends SIG just before
# durable step N, as WARPDRV_CRASH_AT=N would stop there (test_crash.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pkg_lib.sh"

# The signals sent, in turn. A signal ignored when warpdrv starts stays
# ignored (nohup; SIGINT and SIGQUIT in a script's background job), so each
# run sent one starts with the four at their default (env --default-signal);
# where env cannot do that, the signals this shell ignores are left out.
SIGS=(TERM INT HUP QUIT)
if env --default-signal=INT true 2>/dev/null; then
	DFL=(env --default-signal=INT,QUIT,HUP,TERM)
else
	DFL=()
	ign=$((16#$(awk '/^SigIgn/ {print $2}' /proc/$$/status)))
	SIGS=()
	for s in TERM:15 INT:2 HUP:1 QUIT:3; do
		(((ign >> (${s#*:} - 1)) & 1)) || SIGS+=("${s%:*}")
	done
fi
NSIGS=${#SIGS[@]}

# How many durable steps `warpdrv ARGS` on a copy of FROM takes: the
# highest N at which WARPDRV_CRASH_AT=N still stops it (found by halving,
# so that the signal runs below can be checked to have covered every step).
count_steps() { # FROM ARGS...
	local from=$1 lo=0 hi=1 rc
	shift
	crashes() { # N ARGS...
		local at=$1
		shift
		rm -rf "$T/n"
		cp -a "$from" "$T/n"
		rc=0
		WARPDRV_CRASH_AT=$at "$WD" --yes --root "$T/n" --keys "$T/k" "$@" >/dev/null 2>&1 </dev/null || rc=$?
		[ "$rc" -eq 99 ]
	}
	while crashes $hi "$@"; do lo=$hi; hi=$((hi * 2)); done
	while [ $((hi - lo)) -gt 1 ]; do
		local mid=$(((lo + hi) / 2))
		if crashes $mid "$@"; then lo=$mid; else hi=$mid; fi
	done
	echo "$lo"
}

# CONFIG.SYS and IBMCOM/PROTOCOL.INI of a volume, by their digests.
boot_files() { # VOLUME
	(cd "$1" && sha256sum CONFIG.SYS $(find . -ipath ./ibmcom/protocol.ini) 2>/dev/null || true)
}

kept_list() { # VOLUME
	[ ! -d "$1/var/lib/warpdrv/kept" ] || (cd "$1/var/lib/warpdrv/kept" && find . -type f | sort)
}

# What `warpdrv check` says of a volume: its exit status and findings.
check_of() { # VOLUME
	wd --root "$1" check
	echo "$RC $OUT"
}

# Sends a signal before step 1, 2, ... of `warpdrv ARGS` on a copy of FROM,
# the four signals in turn, until a run completes; it must complete right
# after the last of its STEPS steps. Each interrupted run, right after it
# exits and before any other run: exit 1, "interrupted by SIGx" on stderr,
# which says undone or finished; the volume BEFORE (database PKGS_BEFORE) or
# AFTER (PKGS_AFTER) to match, both boot files of the same side, nothing
# pending, no temporary file, and verify and check as on that side.
signal_every_step() { # FROM BEFORE PKGS_BEFORE AFTER PKGS_AFTER ARGS...
	local from=$1 before=$2 pb=$3 after=$4 pa=$5
	shift 5
	local steps n=1 undone=0 finished=0 sig side boot_before boot_after kept0
	local check_before check_after
	steps=$(count_steps "$from" "$@")
	[ "$steps" -ge 5 ] || fail "only $steps steps: is fault injection working?"
	boot_before=$(boot_files "$from")
	kept0=$(kept_list "$from")
	check_before=$(check_of "$from")
	rm -rf "$T/a"
	cp -a "$from" "$T/a"
	"$WD" --yes --root "$T/a" --keys "$T/k" "$@" >/dev/null 2>&1 </dev/null
	boot_after=$(boot_files "$T/a")
	check_after=$(check_of "$T/a")
	while :; do
		rm -rf "$T/c"
		cp -a "$from" "$T/c"
		sig=${SIGS[$(((n - 1) % NSIGS))]}
		RC=0
		WARPDRV_SIGNAL_AT=$n:$sig "${DFL[@]}" "$WD" --yes --root "$T/c" --keys "$T/k" "$@" >/dev/null \
			2>"$T/sig.err" </dev/null || RC=$?
		[ "$RC" -eq 0 ] && break
		local why
		why=$(cat "$T/sig.err")
		[ "$RC" -eq 1 ] || fail "step $n (SIG$sig): exit $RC, not 1: $why"
		grep -qF "interrupted by SIG$sig" "$T/sig.err" || fail "step $n: the message does not name SIG$sig: $why"
		[ "$(pending "$T/c")" = 0 ] || fail "step $n (SIG$sig): a transaction was left pending: $why"
		if grep -qF "it was undone" "$T/sig.err"; then
			side=before
			undone=$((undone + 1))
			grep -qF "nothing was changed" "$T/sig.err" || fail "step $n: undone, but the message does not say so: $why"
			[ "$(snapshot "$T/c" var)" = "$before" ] || fail "step $n (SIG$sig): undone, but the volume is not as before"
			[ "$(installed "$T/c")" = "$pb" ] || fail "step $n: the database does not list '$pb'"
			[ "$(boot_files "$T/c")" = "$boot_before" ] || fail "step $n: the boot files are not the old ones"
			[ "$(kept_list "$T/c")" = "$kept0" ] || fail "step $n: the kept folder is not as it was"
			[ "$(check_of "$T/c")" = "$check_before" ] || fail "step $n: check does not say what it said before: $OUT"
		elif grep -qF "it was finished" "$T/sig.err"; then
			side=after
			finished=$((finished + 1))
			[ "$(snapshot "$T/c" var)" = "$after" ] || fail "step $n (SIG$sig): finished, but the volume is not as after"
			[ "$(installed "$T/c")" = "$pa" ] || fail "step $n: the database does not list '$pa'"
			[ "$(boot_files "$T/c")" = "$boot_after" ] || fail "step $n: the boot files are not the new ones"
			[ "$(check_of "$T/c")" = "$check_after" ] || fail "step $n: check does not say what it says after: $OUT"
		else
			fail "step $n (SIG$sig): the message says neither undone nor finished: $why"
		fi
		[ -z "$(find "$T/c" -name '*.wd-new')" ] || fail "step $n: a temporary file was left ($side)"
		wd --root "$T/c" verify
		assert_rc 0
		n=$((n + 1))
	done
	[ $((n - 1)) -eq "$steps" ] || fail "$((n - 1)) steps were signalled, the run has $steps"
	[ "$(snapshot "$T/c" var)" = "$after" ] || fail "the run without a signal is not 'after'"
	echo "$* : $steps steps signalled, $undone undone, $finished finished"
}

# The main job: setup installs two packages and rewrites CONFIG.SYS and
# PROTOCOL.INI in one transaction. A signal at any step leaves the guest
# booting the old way (MMLEM nowhere) or the new way, never a mix.
t_setup_interrupted_at_every_step_is_undone() {
	mkdir -p "$T/k"
	activated_copy "$T/s0"
	before=$(snapshot "$T/s0" var)
	pci="lspci:$FIX/pci/vbox-82540em.lspci-n"
	cp -a "$T/s0" "$T/s1"
	wd --root "$T/s1" --pci "$pci" setup --yes
	assert_rc 0
	after=$(snapshot "$T/s1" var)
	grep -q MMLEM "$T/s1/CONFIG.SYS" || fail "setup did not configure MMLEM"
	signal_every_step "$T/s0" "$before" "" "$after" "acpi-psd mmlem" --pci "$pci" setup --yes |
		tee "$T/summary"
	grep -q "setup --yes : [0-9]* steps signalled, [0-9]* undone, 0 finished" "$T/summary"
	# and the rollback of that setup (a transaction of its own)
	signal_every_step "$T/s1" "$after" "acpi-psd mmlem" "$(snapshot_rolled_back "$T/s1")" \
		"acpi-psd mmlem" rollback --yes | tee -a "$T/summary"
	grep -q "rollback --yes : [0-9]* steps signalled" "$T/summary"
}

# The volume FROM after `warpdrv rollback`, by its snapshot.
snapshot_rolled_back() { # FROM
	rm -rf "$T/rb"
	cp -a "$1" "$T/rb"
	"$WD" --root "$T/rb" rollback --yes >/dev/null 2>&1 </dev/null
	snapshot "$T/rb" var
}

t_install_and_remove_interrupted_at_every_step() {
	make_good_package
	make_volume "$T/v0"
	before=$(snapshot "$T/v0" var)
	cp -a "$T/v0" "$T/v1"
	wd --root "$T/v1" --keys "$T/k" install "$T/good.wdp"
	assert_rc 0
	after=$(snapshot "$T/v1" var)
	signal_every_step "$T/v0" "$before" "" "$after" "testpkg" install "$T/good.wdp" | tee "$T/summary"
	cp -a "$T/v1" "$T/v2"
	wd --yes --root "$T/v2" remove testpkg
	assert_rc 0
	removed=$(snapshot "$T/v2" var)
	signal_every_step "$T/v1" "$after" "testpkg" "$removed" "" remove testpkg | tee -a "$T/summary"
	grep -q "install.*steps signalled" "$T/summary" && grep -q "remove testpkg : .*steps signalled" "$T/summary"
}

# An upgrade retires files and drops its copies to undo from before its
# commit: a signal there is past the point of no return, and the upgrade is
# finished instead of undone (exit 1 all the same).
t_upgrade_interrupted_at_every_step_is_undone_or_finished() {
	make_good_package
	make_volume "$T/v0"
	wd --root "$T/v0" --keys "$T/k" install "$T/good.wdp"
	assert_rc 0
	before=$(snapshot "$T/v0" var)
	mkdir -p "$T/r11" "$T/new"
	sed -e 's/^version 1.0/version 1.1/' -e '/KEEP.SYS/d' -e 's/NEW.ADD \\OS2\\BOOT\\NEW.ADD/OTHER.SYS \\OS2\\OTHER.SYS/' \
		"$T/recipe/MANIFEST" >"$T/r11/MANIFEST"
	grep -q 'OTHER.SYS' "$T/r11/MANIFEST" || fail "the 1.1 recipe was not made"
	printf 'test driver 1.1\n' >"$T/r11/TEST.OS2"
	printf 'other driver\n' >"$T/r11/OTHER.SYS"
	wda pack "$T/r11" --key "$T/k/repo/test.key" --out "$T/new/testpkg-1.1.wdp"
	assert_rc 0
	wda index "$T/new" --key "$T/k/repo/test.key"
	assert_rc 0
	cp -a "$T/v0" "$T/v1"
	wd --root "$T/v1" --keys "$T/k" --repo "$T/new" upgrade --yes
	assert_rc 0
	after=$(snapshot "$T/v1" var)
	WITH_VERSIONS=1 signal_every_step "$T/v0" "$before" "testpkg=1.0" "$after" "testpkg=1.1" \
		--repo "$T/new" upgrade --yes | tee "$T/summary"
	grep -q "upgrade --yes : [0-9]* steps signalled, [0-9]* undone, [1-9][0-9]* finished" "$T/summary" ||
		fail "no signal was past the point of no return"
}

# An upgrade whose new MMLEM renames the driver rewrites CONFIG.SYS and
# PROTOCOL.INI with the files: the guest boots 2.06 with its lines or 2.07
# with the new ones.
t_an_upgrade_that_rewrites_the_boot_files_interrupted_at_every_step() {
	make_key
	activated_copy "$T/s0"
	wd --root "$T/s0" --pci "lspci:$FIX/pci/vbox-82540em.lspci-n" setup --yes
	assert_rc 0
	before=$(snapshot "$T/s0" var)
	d="$T/m207"
	cp -R "$SRC/drivers/mmlem" "$d"
	sed -i -e 's/^version .*/version 2.07/' -e 's/MMLEM/MMLEMX/g' "$d/MANIFEST"
	sed 's/MMLEM/MMLEMX/g' "$d/MMLEM.NIF" >"$d/MMLEMX.NIF"
	printf 'MMLEMX 2.07 stand-in\n' >"$d/MMLEMX.OS2"
	rm "$d/MMLEM.NIF" "$d/MMLEM.OS2"
	mkdir -p "$T/repo"
	wda pack "$d" --key "$T/k/repo/test.key" --out "$T/repo/"
	wda index "$T/repo" --key "$T/k/repo/test.key"
	assert_rc 0
	cp -a "$T/s0" "$T/s1"
	wd --root "$T/s1" --keys "$T/k" --repo "$T/repo" upgrade --yes
	assert_rc 0
	grep -q 'MMLEMX.OS2' "$T/s1/CONFIG.SYS" || fail "the upgrade did not rewrite CONFIG.SYS"
	after=$(snapshot "$T/s1" var)
	WITH_VERSIONS=1 signal_every_step "$T/s0" "$before" "acpi-psd=3.23.16 mmlem=2.06" \
		"$after" "acpi-psd=3.23.16 mmlem=2.07" --repo "$T/repo" upgrade --yes | tee "$T/summary"
	grep -q "upgrade --yes : [0-9]* steps signalled" "$T/summary"
}

# Recovery runs durable steps too: a signal during it waits for it to end.
# A setup stopped just before its commit leaves the most to undo; each step
# of the recovery that undoes it is signalled in turn.
t_recovery_runs_to_its_end_whatever_signal() {
	mkdir -p "$T/k"
	activated_copy "$T/s0"
	before=$(snapshot "$T/s0" var)
	pci="lspci:$FIX/pci/vbox-82540em.lspci-n"
	steps=$(count_steps "$T/s0" --pci "$pci" setup --yes)
	rm -rf "$T/crashed"
	cp -a "$T/s0" "$T/crashed"
	RC=0
	WARPDRV_CRASH_AT=$steps "$WD" --root "$T/crashed" --pci "$pci" setup --yes >/dev/null 2>&1 || RC=$?
	[ "$RC" -eq 99 ] || fail "exit $RC, not the injected crash"
	[ "$(pending "$T/crashed")" = 1 ] || fail "the crash left nothing to recover"
	n=1
	while :; do
		rm -rf "$T/c"
		cp -a "$T/crashed" "$T/c"
		sig=${SIGS[$(((n - 1) % NSIGS))]}
		RC=0
		WARPDRV_SIGNAL_AT=$n:$sig "${DFL[@]}" "$WD" --root "$T/c" recover >/dev/null 2>"$T/sig.err" </dev/null || RC=$?
		[ "$RC" -eq 0 ] && break
		why=$(cat "$T/sig.err")
		[ "$RC" -eq 1 ] || fail "recovery step $n: exit $RC, not 1: $why"
		grep -qF "interrupted by SIG$sig while recovering: the interrupted install of setup was undone first" \
			"$T/sig.err" || fail "recovery step $n: $why"
		[ "$(pending "$T/c")" = 0 ] || fail "recovery step $n: still pending"
		[ "$(snapshot "$T/c" var)" = "$before" ] || fail "recovery step $n: the volume is not as before"
		wd --root "$T/c" check
		assert_rc 0
		n=$((n + 1))
	done
	[ "$n" -gt 5 ] || fail "only $((n - 1)) recovery steps were signalled"
	[ "$(snapshot "$T/c" var)" = "$before" ] || fail "the recovery without a signal is not 'before'"
	echo "recovery of a setup stopped at step $steps: $((n - 1)) steps signalled, each undone first"
}

# A removal stopped after its intent is finished by recovery, and by
# recover --abandon forgotten: a signal changes neither.
t_a_removal_recovered_or_abandoned_under_a_signal_is_finished() {
	make_good_package
	make_volume "$T/v0"
	wd --root "$T/v0" --keys "$T/k" install "$T/good.wdp"
	assert_rc 0
	cp -a "$T/v0" "$T/v1"
	wd --yes --root "$T/v1" remove testpkg
	assert_rc 0
	removed=$(snapshot "$T/v1" var)
	RC=0
	WARPDRV_CRASH_AT=3 "$WD" --yes --root "$T/v0" remove testpkg >/dev/null 2>&1 || RC=$?
	[ "$RC" -eq 99 ] || fail "exit $RC, not the injected crash"
	[ "$(pending "$T/v0")" = 1 ] || fail "the crash left nothing to recover"
	cp -a "$T/v0" "$T/v2"
	RC=0
	WARPDRV_SIGNAL_AT=1:HUP "${DFL[@]}" "$WD" --root "$T/v0" recover >/dev/null 2>"$T/err" </dev/null || RC=$?
	ERR=$(cat "$T/err")
	assert_rc 1
	assert_err "interrupted by SIGHUP while recovering: the interrupted removal of testpkg was finished first"
	[ "$(pending "$T/v0")" = 0 ] || fail "still pending"
	[ "$(snapshot "$T/v0" var)" = "$removed" ] || fail "the volume is not as removed"
	[ "$(installed "$T/v0")" = "" ] || fail "testpkg is still listed"
	RC=0
	WARPDRV_SIGNAL_AT=1:TERM "${DFL[@]}" "$WD" --root "$T/v2" recover --abandon >/dev/null 2>"$T/err" </dev/null || RC=$?
	ERR=$(cat "$T/err")
	assert_rc 1
	assert_err "interrupted by SIGTERM: the interrupted removal of testpkg was abandoned all the same"
	[ "$(pending "$T/v2")" = 0 ] || fail "the abandon left it pending"
	wd --root "$T/v2" recover
	assert_rc 0
}

# Outside a transaction (here at setup's question, before anything is
# written) a signal ends the run at once: exit 1, one line, nothing changed.
t_a_signal_at_the_prompt_ends_the_run() {
	mkdir -p "$T/k"
	activated_copy "$T/s0"
	before=$(snapshot "$T/s0")
	for sig in INT QUIT; do
		python3 - "$WD" "$T/s0" "lspci:$FIX/pci/vbox-82540em.lspci-n" "$T/out" "$T/err" "$sig" >"$T/rc" <<'PY'
import os, pty, signal, subprocess, sys, time
wd, root, pci, out, err, sig = sys.argv[1:7]
m, s = pty.openpty()
def defaults():  # as a login shell's foreground job has them
    for n in ("SIGINT", "SIGQUIT", "SIGHUP", "SIGTERM"):
        signal.signal(getattr(signal, n), signal.SIG_DFL)
p = subprocess.Popen([wd, "--root", root, "--pci", pci, "setup"], stdin=s,
                     stdout=open(out, "w"), stderr=open(err, "w"), preexec_fn=defaults)
os.close(s)
end = time.time() + 20
while "Apply these changes?" not in open(out).read():
    if p.poll() is not None or time.time() > end:
        p.kill()
        sys.exit("no question asked: " + open(err).read())
    time.sleep(0.02)
p.send_signal(getattr(signal, "SIG" + sig))
print(p.wait())
PY
		RC=$(cat "$T/rc")
		OUT=$(cat "$T/out")
		ERR=$(cat "$T/err")
		assert_rc 1
		assert_err "warpdrv: interrupted by SIG$sig; no transaction was under way"
		[ "$(wc -l <"$T/err")" -eq 1 ] || fail "more than one line: $ERR"
		[ "$(snapshot "$T/s0")" = "$before" ] || fail "SIG$sig at the question changed the volume"
	done
}

# Waiting for the volume's lock (another warpdrv holds it) is outside the
# transaction too: SIGTERM ends the wait, nothing written.
t_a_signal_while_waiting_for_the_lock_ends_the_run() {
	make_good_package
	make_volume "$T/v"
	mkdir -p "$T/v/var/lib/warpdrv"
	python3 -c '
import fcntl, sys, time
f = open(sys.argv[1], "w")
fcntl.lockf(f, fcntl.LOCK_EX)
open(sys.argv[2], "w").close()
time.sleep(30)' "$T/v/var/lib/warpdrv/lock" "$T/ready" &
	holder=$!
	while [ ! -e "$T/ready" ]; do sleep 0.05; done
	before=$(snapshot "$T/v")
	WARPDRV_LOCK_WAIT=20 "${DFL[@]}" "$WD" --root "$T/v" --keys "$T/k" install "$T/good.wdp" >"$T/out" 2>"$T/err" </dev/null &
	pid=$!
	# waiting: the lock file is open in the second warpdrv
	for _ in $(seq 200); do
		ls -l "/proc/$pid/fd" 2>/dev/null | grep -q 'var/lib/warpdrv/lock' && break
		sleep 0.02
	done
	ls -l "/proc/$pid/fd" 2>/dev/null | grep -q 'var/lib/warpdrv/lock' || fail "warpdrv never waited for the lock"
	start=$(date +%s%N)
	kill -TERM "$pid"
	RC=0
	wait "$pid" || RC=$?
	took=$((($(date +%s%N) - start) / 1000000))
	kill "$holder"
	wait "$holder" 2>/dev/null || true
	OUT=$(cat "$T/out")
	ERR=$(cat "$T/err")
	assert_rc 1
	assert_err "warpdrv: interrupted by SIGTERM; no transaction was under way"
	[ "$took" -lt 5000 ] || fail "the signal did not end the wait ($took ms)"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the volume changed"
}

# A signal ignored when warpdrv starts stays ignored: under nohup a SIGHUP
# (the terminal going away) neither interrupts the change nor ends the run.
t_under_nohup_a_hangup_is_ignored() {
	command -v nohup >/dev/null || skip "no nohup"
	make_good_package
	make_volume "$T/v0"
	cp -a "$T/v0" "$T/v1"
	wd --root "$T/v1" --keys "$T/k" install "$T/good.wdp"
	assert_rc 0
	after=$(snapshot "$T/v1" var)
	for at in 1 3; do
		rm -rf "$T/c"
		cp -a "$T/v0" "$T/c"
		RC=0
		WARPDRV_SIGNAL_AT=$at:HUP nohup "$WD" --root "$T/c" --keys "$T/k" install "$T/good.wdp" \
			>"$T/out" 2>"$T/err" </dev/null || RC=$?
		OUT=$(cat "$T/out")
		ERR=$(cat "$T/err")
		assert_rc 0
		assert_out "Installed testpkg 1.0"
		[ "$(snapshot "$T/c" var)" = "$after" ] || fail "a hangup at step $at under nohup changed the outcome"
		[ "$(pending "$T/c")" = 0 ] || fail "a transaction was left pending"
	done
}

run_tests
