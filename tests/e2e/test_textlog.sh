#!/usr/bin/env bash
# The plain-text log on the volume, var/log/warpdrv.log (\VAR\LOG\WARPDRV.LOG
# in the guest): a line per transaction, CR LF, ASCII only, kept consistent
# with the transaction across a crash, never written through a planted link,
# and capped (txn/textlog.h, docs/recovery.md "The text log").
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pkg_lib.sh"
. "$(dirname "$0")/setup_lib.sh"

PCI="lspci:$FIX/pci/vbox-82540em.lspci-n"
LOG=var/log/warpdrv.log
STAMP='[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z'

# The log's lines without their CR LF (fails when one lacks it, or a byte is
# not printable ASCII).
log_lines() { # VOLUME (the log at $LOGP, else $LOG)
	python3 - "$1/${LOGP:-$LOG}" <<'PY' || fail "the log is not CR LF ASCII text"
import sys
b = open(sys.argv[1], 'rb').read()
assert b.endswith(b'\r\n'), 'no CR LF at the end'
lines = b[:-2].split(b'\r\n')
for l in lines:
    assert b'\n' not in l and b'\r' not in l, 'a bare LF or CR: %r' % l
    assert all(0x20 <= c < 0x7f for c in l), 'not printable ASCII: %r' % l
print('\n'.join(l.decode() for l in lines))
PY
}

# Asserts that line N (1-based; -1 the last) matches the extended regex
# (after the time stamp), and that there are COUNT lines.
expect_line() { # VOLUME N REGEX
	local got
	got=$(log_lines "$1" | { if [ "$2" = -1 ]; then tail -n 1; else sed -n "$2p"; fi; })
	[[ $got =~ ^$STAMP\ $3$ ]] || fail "log line $2: '$got' does not match '$3'"
}
expect_count() { # VOLUME COUNT
	local n
	n=$(log_lines "$1" | wc -l)
	[ "$n" -eq "$2" ] || fail "the log has $n lines, wanted $2: $(log_lines "$1")"
}

t_a_line_after_setup_install_remove_and_rollback() {
	volume ecs21-e1000
	subscribe drivers,acpi
	[ ! -e "$T/v/var/log" ] || fail "activation wrote a log"
	wd --root "$T/v" --pci "$PCI" setup --yes
	assert_rc 0
	expect_count "$T/v" 1
	expect_line "$T/v" 1 'setup \| mmlem 2\.06, acpi-psd 3\.23\.16 \| generation 1 \| done'
	wd --root "$T/v" install pcntnd
	assert_rc 0
	expect_line "$T/v" -1 'install \| pcntnd 4\.13 \| - \| done'
	wd --root "$T/v" --yes remove pcntnd
	assert_rc 0
	expect_line "$T/v" -1 'remove \| pcntnd 4\.13 \| - \| done'
	wd --root "$T/v" --yes rollback
	assert_rc 0
	expect_line "$T/v" -1 'rollback 1 \| - \| generation 2 \| done'
	expect_count "$T/v" 4
	# a command that changes nothing writes no line
	wd --root "$T/v" install pcntnd
	wd --root "$T/v" install pcntnd
	assert_rc 0
	expect_count "$T/v" 5
	wd --root "$T/v" --pci "$PCI" --dry-run setup
	assert_rc 0
	expect_count "$T/v" 5
}

t_a_version_change_reads_from_to() {
	make_volume "$T/v"
	make_good_package
	wd --root "$T/v" --keys "$T/k" install "$T/good.wdp"
	assert_rc 0
	sed -i 's/^version 1.0$/version 1.1/' "$T/recipe/MANIFEST"
	wda pack "$T/recipe" --key "$T/k/repo/test.key" --out "$T/new.wdp"
	assert_rc 0
	wd --root "$T/v" --keys "$T/k" install "$T/new.wdp"
	assert_rc 0
	expect_line "$T/v" 1 'install \| testpkg 1\.0 \| - \| done'
	expect_line "$T/v" 2 'install \| testpkg 1\.0 -> 1\.1 \| - \| done'
}

# An existing \VAR\LOG\WARPDRV.LOG in other case is the log: appended to,
# with its CR LF lines kept, and no second folder is made.
t_the_log_found_whatever_its_case() {
	make_volume "$T/v"
	make_good_package
	mkdir -p "$T/v/var/LOG"
	printf 'an older line\r\n' >"$T/v/var/LOG/WARPDRV.LOG"
	wd --root "$T/v" --keys "$T/k" install "$T/good.wdp"
	assert_rc 0
	[ ! -e "$T/v/var/log" ] || fail "a second, lower-case log folder was made"
	LOGP=var/LOG/WARPDRV.LOG
	[ "$(log_lines "$T/v" | head -n 1)" = "an older line" ] || fail "the older line is gone"
	expect_count "$T/v" 2
	expect_line "$T/v" 2 'install \| testpkg 1\.0 \| - \| done'
}

# A failure after the intent puts the volume back: the line says undone.
# One that changed nothing (the intent itself not written) writes none.
t_a_failure_put_back_is_undone() {
	make_volume "$T/v"
	make_good_package
	WARPDRV_FAIL_AT=3 wd --root "$T/v" --keys "$T/k" install "$T/good.wdp"
	assert_rc 1
	assert_err "nothing was changed"
	expect_count "$T/v" 1
	expect_line "$T/v" 1 'install \| testpkg 1\.0 \| - \| undone'
	WARPDRV_FAIL_AT=1 wd --root "$T/v" --keys "$T/k" install "$T/good.wdp"
	assert_rc 1
	expect_count "$T/v" 1
}

# A crash between the commit and the log's rename loses no line: the next
# writing command (or recover) appends it, once.
t_a_crash_before_the_line_is_written() {
	make_volume "$T/v"
	make_good_package
	WARPDRV_CRASH_AT=log wd --root "$T/v" --keys "$T/k" install "$T/good.wdp"
	assert_rc 99
	[ ! -e "$T/v/$LOG" ] || fail "the line was written before the crash"
	before=$(snapshot "$T/v")
	wd --root "$T/v" list --installed
	assert_rc 0
	[ "$(snapshot "$T/v")" = "$before" ] || fail "a read-only command wrote"
	wd --root "$T/v" recover
	assert_rc 0
	expect_count "$T/v" 1
	expect_line "$T/v" 1 'install \| testpkg 1\.0 \| - \| done'
	wd --root "$T/v" recover
	assert_rc 0
	wd --root "$T/v" --yes remove testpkg
	assert_rc 0
	expect_count "$T/v" 2
	expect_line "$T/v" 2 'remove \| testpkg 1\.0 \| - \| done'
}

# A crash (kill -9) at each step before the commit: the next run undoes it and
# the log says so, never "done"; a crash after the commit: "done" once.
t_a_crash_at_every_step_leaves_the_log_consistent() {
	local n=1 done_at=0
	make_good_package
	while [ $n -lt 40 ]; do
		rm -rf "$T/v"
		make_volume "$T/v"
		WARPDRV_CRASH_AT=$n wd --root "$T/v" --keys "$T/k" install "$T/good.wdp"
		if [ "$RC" -eq 0 ]; then
			done_at=$n
			break
		fi
		[ "$RC" -eq 99 ] || fail "step $n: exit $RC: $ERR"
		[ ! -e "$T/v/$LOG" ] || fail "step $n: a line before the commit: $(log_lines "$T/v")"
		wd --root "$T/v" recover
		assert_rc 0
		state=$(installed "$T/v")
		if [ -z "$state" ] && [ ! -e "$T/v/$LOG" ]; then
			[ $n -eq 1 ] || fail "step $n: undone without a line"
		elif [ -z "$state" ]; then
			expect_count "$T/v" 1
			expect_line "$T/v" 1 'install \| testpkg 1\.0 \| - \| recovered: undone'
		else
			expect_count "$T/v" 1
			expect_line "$T/v" 1 'install \| testpkg 1\.0 \| - \| (done|recovered: finished)'
		fi
		n=$((n + 1))
	done
	[ "$done_at" -gt 3 ] || fail "the install never ran to its end"
	expect_count "$T/v" 1
	expect_line "$T/v" 1 'install \| testpkg 1\.0 \| - \| done'
}

# A symbolic link planted at var/log/warpdrv.log is not followed: the file
# it points at is unchanged and the log becomes a plain file of its own.
t_a_planted_symlink_is_not_followed() {
	make_volume "$T/v"
	make_good_package
	mkdir -p "$T/v/var/log" "$T/host"
	printf 'host file\n' >"$T/host/target"
	ln -s "$T/host/target" "$T/v/$LOG"
	ln -s "$T/host" "$T/v/var/log/warpdrv.log.wd-new"
	host=$(snapshot "$T/host")
	wd --root "$T/v" --keys "$T/k" install "$T/good.wdp"
	assert_rc 0
	[ "$(snapshot "$T/host")" = "$host" ] || fail "the host file changed"
	[ -f "$T/v/$LOG" ] && [ ! -L "$T/v/$LOG" ] || fail "the log is not a plain file"
	[ ! -e "$T/v/var/log/warpdrv.log.wd-new" ] || fail "the temporary was left"
	expect_count "$T/v" 1
	expect_line "$T/v" 1 'install \| testpkg 1\.0 \| - \| done'
}

# A hard link to a host file: never read (its bytes do not reach the
# volume's log), never written: the host file keeps its bytes.
t_a_planted_hard_link_is_not_written_through() {
	make_volume "$T/v"
	make_good_package
	mkdir -p "$T/v/var/log"
	printf 'secret host bytes\r\n' >"$T/secret"
	ln "$T/secret" "$T/v/$LOG"
	sum=$(sha256sum <"$T/secret")
	wd --root "$T/v" --keys "$T/k" install "$T/good.wdp"
	assert_rc 0
	[ "$(sha256sum <"$T/secret")" = "$sum" ] || fail "the host file changed"
	[ "$(stat -c %h "$T/secret")" = 1 ] || fail "the volume still links the host file"
	! grep -q secret "$T/v/$LOG" || fail "the host file's bytes were copied into the log"
	expect_count "$T/v" 1
	expect_line "$T/v" 1 'install \| testpkg 1\.0 \| - \| done'
}

# A log folder that is a link out of the volume: no log is written there,
# and the transaction is not failed for it.
t_a_log_folder_link_is_refused_quietly() {
	make_volume "$T/v"
	make_good_package
	mkdir -p "$T/v/var" "$T/elsewhere"
	ln -s "$T/elsewhere" "$T/v/var/log"
	wd --root "$T/v" --keys "$T/k" install "$T/good.wdp"
	assert_rc 0
	[ -z "$(ls -A "$T/elsewhere")" ] || fail "something was written through the folder link"
	[ "$(installed "$T/v")" = testpkg ] || fail "the install did not happen"
}

# Text that is not ASCII (a line stored in a crafted database) is escaped.
t_bytes_that_are_not_ascii_are_escaped() {
	make_volume "$T/v"
	make_good_package
	wd --root "$T/v" --keys "$T/k" install "$T/good.wdp"
	assert_rc 0
	rm "$T/v/$LOG"
	python3 - "$T/v/var/lib/warpdrv/warpdrv.db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("UPDATE meta SET value = ? WHERE key = 'textlog-last'",
          ('2026-01-01T00:00:00Z install | g\u00e4st \x1b[31m\r\nx | - | done',))
c.commit()
PY
	wd --root "$T/v" recover
	assert_rc 0
	expect_count "$T/v" 1
	[ "$(log_lines "$T/v")" = '2026-01-01T00:00:00Z install | g\xC3\xA4st \x1B[31m\x0D\x0Ax | - | done' ] ||
		fail "not escaped: $(log_lines "$T/v")"
}

# The log keeps its last TEXTLOG_MAX (64 KiB) of whole lines.
t_the_log_is_capped() {
	make_volume "$T/v"
	make_good_package
	mkdir -p "$T/v/var/log"
	python3 -c 'import sys; sys.stdout.buffer.write(b"".join(b"old line %06d\r\n" % i for i in range(20000)))' \
		>"$T/v/$LOG"
	wd --root "$T/v" --keys "$T/k" install "$T/good.wdp"
	assert_rc 0
	size=$(stat -c %s "$T/v/$LOG")
	[ "$size" -le 65536 ] && [ "$size" -gt 60000 ] || fail "the log is $size bytes"
	[[ $(log_lines "$T/v" | head -n 1) =~ ^old\ line\ [0-9]{6}$ ]] || fail "the first line is cut"
	[ "$(log_lines "$T/v" | tail -n 2 | head -n 1)" = "old line 019999" ] || fail "the last old line is gone"
	expect_line "$T/v" -1 'install \| testpkg 1\.0 \| - \| done'
}

# A recovery that cannot finish writes no line; recover --abandon writes
# "abandoned", named by the interrupted change.
t_an_abandoned_change_is_logged_so() {
	make_volume "$T/v"
	make_good_package
	wd --root "$T/v" --keys "$T/k" install "$T/good.wdp"
	assert_rc 0
	WARPDRV_CRASH_AT=2 wd --yes --root "$T/v" remove testpkg
	assert_rc 99
	rm "$T/v/var/lib/warpdrv/kept/"*
	wd --root "$T/v" recover
	assert_rc 1
	expect_count "$T/v" 1
	wd --root "$T/v" recover --abandon
	assert_rc 0
	expect_count "$T/v" 2
	expect_line "$T/v" 2 'remove \| testpkg 1\.0 \| - \| abandoned'
	wd --root "$T/v" recover --abandon
	assert_rc 0
	expect_count "$T/v" 2
}

# No package may claim the log or its folder, whatever its key.
t_a_package_may_not_claim_the_log() {
	make_key
	for dest in '\Var\Log\WarpDrv.Log' '\VAR\LOG'; do
		make_recipe "$T/r"
		grep -v '^file NEW.ADD ' "$T/r/MANIFEST" >"$T/m"
		printf 'file NEW.ADD %s\n' "$dest" >>"$T/m"
		mv "$T/m" "$T/r/MANIFEST"
		wda pack "$T/r" --key "$T/k/repo/test.key" --out "$T/bad.wdp"
		assert_rc 3
		assert_err "destination '$dest' is"
		[ ! -e "$T/bad.wdp" ] || fail "a package was written for $dest"
		rm -rf "$T/r"
	done
	assert_err "is a folder warpdrv needs"
}

run_tests
