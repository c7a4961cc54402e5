#!/usr/bin/env bash
# A volume's database is data from wherever the volume came from: a crafted
# var/lib/warpdrv/warpdrv.db must not make warpdrv touch anything outside the
# root, nor run SQL text it holds. Each case: a read-only command refuses
# with exit 1 and a message naming the database and the bad row, the volume's
# bytes are unchanged, and a sentinel folder beside the volume is untouched.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pkg_lib.sh"

command -v sqlite3 >/dev/null || sh "$SRC/scripts/deps.sh" >/dev/null 2>&1 || true

SHA=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef

# $T/a/b/v: a volume with testpkg installed (so its database has the newest
# schema); $T/outside: the sentinel, three folders up from the root.
hostile_volume() {
	command -v sqlite3 >/dev/null || skip "no sqlite3 program (scripts/deps.sh installs it)"
	make_good_package
	make_volume "$T/a/b/v"
	wd --root "$T/a/b/v" --keys "$T/k" install "$T/good.wdp"
	assert_rc 0
	mkdir -p "$T/outside/victim"
	printf 'the host file nobody may touch\n' >"$T/outside/victim/file"
	DB="$T/a/b/v/var/lib/warpdrv/warpdrv.db"
}

# Runs SQL on the crafted database.
craft() {
	sqlite3 "$DB" "$1"
}

# Replaces the database by a genuine one of schema version N: the first N
# steps of state/schema.c, as an older warpdrv wrote it (a database whose
# schema is not exactly one warpdrv wrote is refused before any query).
old_db() { # N
	rm -f "$DB"
	python3 - "$SRC/state/schema.c" "$DB" "$1" <<'PY'
import re, sqlite3, sys
src = open(sys.argv[1]).read()
body = src[src.index("db_schema_steps[] = {"):]
body = re.sub(r"/\*.*?\*/", "", body[:re.search(r"^\s*NULL\b", body, re.M).start()], flags=re.S)
steps, cur = [], ""
for lit, comma in re.findall(r'"((?:[^"\\]|\\.)*)"|(,)', body):
    if comma:
        steps.append(cur); cur = ""
    else:
        cur += lit.encode().decode("unicode_escape")
c = sqlite3.connect(sys.argv[2])
for i in range(int(sys.argv[3])):
    c.executescript(steps[i])
c.execute("PRAGMA user_version = %d" % int(sys.argv[3]))
c.commit()
PY
}

# Every read-only command refuses: exit 1, the message, nothing changed.
refused_by_every_reader() { # MESSAGE...
	local vol before_v before_o
	vol="$T/a/b/v"
	before_v=$(snapshot "$vol")
	before_o=$(snapshot "$T/outside")
	for args in "list --installed" "verify" "history" \
		"detect --pci lspci:$FIX/pci/ecs-guest.lspci-nn"; do
		# shellcheck disable=SC2086
		wd --root "$vol" --keys "$T/k" $args
		assert_rc 1
		assert_err "$DB: interrupted transaction 100"
		for m in "$@"; do
			assert_err "$m"
		done
		[ "$(snapshot "$vol")" = "$before_v" ] || fail "$args changed the volume"
		[ "$(snapshot "$T/outside")" = "$before_o" ] || fail "$args changed the folder outside"
	done
	[ -f "$T/outside/victim/file" ] || fail "the host file outside the root is gone"
}

t_a_pending_install_naming_a_path_outside_the_root_is_refused() {
	hostile_volume
	craft "INSERT INTO txn (id, action, package, started, rows_format)
	       VALUES (100, 'install', 'evil', datetime('now'), 1);
	       INSERT INTO txn_op (txn, seq, kind, host, new_sha256)
	       VALUES (100, 0, 'put', '../../../outside/victim', '$SHA');"
	refused_by_every_reader "operation 0: host '../../../outside/victim' is not a path below" \
		"the volume's root (it has a '.' or '..' component)" "nothing was done"
	# a command that writes refuses the same way, and changes none of the user's files
	user=$(snapshot "$T/a/b/v" var)
	wd --yes --root "$T/a/b/v" --keys "$T/k" remove testpkg
	assert_rc 1
	assert_err "host '../../../outside/victim' is not a path below the volume's root"
	[ "$(snapshot "$T/a/b/v" var)" = "$user" ] || fail "remove changed the volume's files"
	[ -f "$T/outside/victim/file" ] || fail "the host file outside the root is gone"
}

t_a_pending_removal_with_an_absolute_kept_copy_is_refused() {
	hostile_volume
	craft "INSERT INTO txn (id, action, package, started, rows_format)
	       VALUES (100, 'remove', 'testpkg', datetime('now'), 1);
	       INSERT INTO txn_op (txn, seq, kind, host, kept, old_sha256, new_sha256)
	       VALUES (100, 0, 'restore', 'OS2/KEEP.SYS', '$T/outside/victim/file', '$SHA', '$SHA');"
	refused_by_every_reader "operation 0: kept '" "is not a path below the volume's root (it is absolute)"
}

t_a_pending_install_aimed_at_the_state_folder_is_refused() {
	hostile_volume
	craft "INSERT INTO txn (id, action, package, started, rows_format)
	       VALUES (100, 'install', 'evil', datetime('now'), 1);
	       INSERT INTO txn_op (txn, seq, kind, host, new_sha256)
	       VALUES (100, 0, 'put', 'VAR/LIB/WARPDRV/warpdrv.db', '$SHA');"
	refused_by_every_reader "host 'VAR/LIB/WARPDRV/warpdrv.db' lies in warpdrv's own state folder"
}

t_stored_commit_sql_is_never_run() {
	hostile_volume
	craft "INSERT INTO txn (id, action, package, started, done_sql)
	       VALUES (100, 'install', 'evil', datetime('now'),
	       'ATTACH DATABASE ''$T/outside/x.db'' AS x; CREATE TABLE x.t (a);');
	       INSERT INTO txn_op (txn, seq, kind, host, new_sha256)
	       VALUES (100, 0, 'put', 'OS2/EVIL.SYS', '$SHA');"
	refused_by_every_reader "done_sql holds SQL text, which this warpdrv never runs"
	[ ! -e "$T/outside/x.db" ] || fail "the stored SQL ran: $T/outside/x.db exists"
	# with the rows of this build's format as well, the SQL text still refuses it
	craft "UPDATE txn SET rows_format = 1"
	refused_by_every_reader "holds SQL text, which this warpdrv never runs"
	[ ! -e "$T/outside/x.db" ] || fail "the stored SQL ran: $T/outside/x.db exists"
}

# A database an older warpdrv (schema 6) left with an interrupted
# transaction, whose commit it kept as SQL text: refused before its schema is
# upgraded, so that the older warpdrv can still finish it.
t_an_older_pending_transaction_is_left_for_the_older_warpdrv() {
	hostile_volume
	old_db 6
	craft "INSERT INTO txn (id, action, package, started, done_sql)
	       VALUES (100, 'install', 'older', datetime('now'), 'INSERT INTO history VALUES (1)');
	       INSERT INTO txn_op (txn, seq, kind, host, new_sha256)
	       VALUES (100, 0, 'put', 'OS2/OLDER.SYS', '$SHA');"
	refused_by_every_reader "(install of older) was recorded by an older warpdrv (database schema 6)" \
		"finish it with that warpdrv"
	[ "$(sqlite3 "$DB" "PRAGMA user_version")" = 6 ] || fail "the schema was upgraded"
}

t_an_unknown_operation_is_refused() {
	hostile_volume
	craft "INSERT INTO txn (id, action, package, started, rows_format)
	       VALUES (100, 'install', 'evil', datetime('now'), 1);
	       INSERT INTO txn_op (txn, seq, kind, host, new_sha256)
	       VALUES (100, 0, 'rmtree', 'OS2', '$SHA');"
	refused_by_every_reader "operation 0: kind 'rmtree' is not an operation warpdrv records"
}

# A row that passes every check still cannot make recovery delete a file the
# transaction did not write: undoing an install deletes a new file only when
# it holds the new bytes.
t_undoing_a_crafted_install_deletes_nothing_it_did_not_write() {
	hostile_volume
	craft "INSERT INTO txn (id, action, package, started, rows_format)
	       VALUES (100, 'install', 'evil', datetime('now'), 1);
	       INSERT INTO txn_op (txn, seq, kind, host, new_sha256)
	       VALUES (100, 0, 'put', 'CONFIG.SYS', '$SHA');"
	user=$(snapshot "$T/a/b/v" var)
	wd --root "$T/a/b/v" recover
	assert_rc 0
	assert_out "Undid the interrupted install of evil."
	wd --root "$T/a/b/v" --json history
	assert_rc 0
	assert_json '[h["action"] for h in d["history"]] == ["install", "undo"]'
	[ "$(snapshot "$T/a/b/v" var)" = "$user" ] || fail "the undo changed the volume's files"
	[ -f "$T/a/b/v/CONFIG.SYS" ] || fail "CONFIG.SYS was deleted"
}

# An installed file's row is read back with the same care: verify and remove
# refuse a host path outside the root before anything is read or deleted.
t_an_installed_file_outside_the_root_is_refused() {
	hostile_volume
	craft "UPDATE file SET host = '../../../outside/victim/file' WHERE path LIKE '%TEST.OS2'"
	before=$(snapshot "$T/a/b/v")
	wd --root "$T/a/b/v" verify
	assert_rc 1
	assert_err "$DB: file row \\IBMCOM\\MACS\\TEST.OS2: host '../../../outside/victim/file' is not a path below the volume's root"
	[ "$(snapshot "$T/a/b/v")" = "$before" ] || fail "verify changed the volume"
	wd --yes --root "$T/a/b/v" remove testpkg
	assert_rc 1
	assert_err "host '../../../outside/victim/file' is not a path below the volume's root"
	[ "$(snapshot "$T/a/b/v")" = "$before" ] || fail "remove changed the volume"
	[ -f "$T/outside/victim/file" ] || fail "the host file outside the root is gone"
}

run_tests
