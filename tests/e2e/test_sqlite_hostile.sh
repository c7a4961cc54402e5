#!/usr/bin/env bash
# What SQLite would open beside a volume's database by a name the volume
# wrote: a hot journal naming a super-journal on the host (which SQLite
# deletes once it has played the journal back), a header that says WAL, a
# -wal or -shm of every kind, a journal exchanged for a hard link to a host
# file while warpdrv writes it. Each is refused (exit 3, naming the file and
# what to do) or made harmless, and no host file is deleted, truncated, read
# or written: the sentinel folder $T/outside beside the volume is checked
# after every command, and the volume is as it was (or as the command makes
# it). A randomized campaign plants sidecars of random kinds and names under
# every command. Read-only commands on a read-only bind mount work.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pkg_lib.sh"

DB=var/lib/warpdrv/warpdrv.db

# $T/v with testpkg installed (a database), $T/k the key, $T/outside the
# sentinel: a victim file, a 0600 secret, a folder.
prepare() {
	make_volume "$T/v"
	make_key
	make_recipe
	make_good_package
	wd --root "$T/v" --keys "$T/k" install "$T/good.wdp"
	assert_rc 0
	mkdir -p "$T/outside/folder"
	printf 'a host file\n' >"$T/outside/victim"
	printf 'secret\n' >"$T/outside/secret"
	chmod 600 "$T/outside/secret"
	S0=$(snapshot "$T/outside")
}

outside_same() { # WHAT
	[ "$(snapshot "$T/outside")" = "$S0" ] || fail "$1: a host file beside the volume changed"
	[ "$(cat "$T/outside/victim")" = "a host file" ] || fail "$1: the victim was written"
}

# A hot journal beside DB (a write cut off after SQLite spilled pages into
# the database), its super-journal record naming SUPER: what SQLite's own
# file layer plays back and then deletes SUPER for.
plant_hot_journal() { # DB SUPER
	python3 - "$1" "$2" <<'PY'
import os, sqlite3, struct, sys
db, sup = sys.argv[1], sys.argv[2].encode()
pid = os.fork()
if pid == 0:
    c = sqlite3.connect(db, isolation_level=None)
    c.execute("PRAGMA cache_size = 1")
    c.execute("BEGIN IMMEDIATE")
    for i in range(300):
        c.execute("INSERT INTO history (at, action, package, version) VALUES (?, ?, ?, ?)",
                  ("2026-01-01 00:00:00", "install", "x" * 200, str(i)))
    os._exit(0)  # no commit, no rollback: the journal is hot
os.waitpid(pid, 0)
j = db + "-journal"
assert os.path.getsize(j) > 0, "no journal was left"
cksum = sum(b if b < 128 else b - 256 for b in sup) & 0xffffffff
with open(j, "ab") as f:
    f.write(struct.pack(">I", 0x40000000 // 4096 + 1) + sup +
            struct.pack(">II", len(sup), cksum) + bytes.fromhex("d9d505f920a163d7"))
PY
}

# The attack is real: SQLite's own file layer, given the same journal on a
# copy, deletes the file it names.
oracle_deletes() { # SUPER-NAME-FOR-THE-COPY
	rm -rf "$T/copy" "$T/copy-victim"
	mkdir -p "$T/copy"
	cp "$T/v/$DB" "$T/copy/warpdrv.db"
	printf 'another file\n' >"$T/copy-victim"
	plant_hot_journal "$T/copy/warpdrv.db" "$1"
	(cd "$T" && python3 -c 'import sqlite3,sys; sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM history").fetchone()' "$T/copy/warpdrv.db") 2>/dev/null || true
	[ ! -e "$T/copy-victim" ] || fail "the oracle: SQLite did not act on the planted journal"
}

t_a_journal_naming_a_host_file_as_super_journal_is_refused() {
	prepare
	oracle_deletes "$T/copy-victim"
	local super
	for super in "$T/outside/victim" "../../../../outside/victim" "outside/victim"; do
		rm -f "$T/v/$DB-journal"
		cp "$T/v/$DB" "$T/db.before"
		plant_hot_journal "$T/v/$DB" "$super"
		V0=$(snapshot "$T/v")
		for cmd in "list --installed" "history" "check" "verify" "recover" "remove testpkg"; do
			# from $T, so that a relative name would reach the victim
			cd "$T"
			wd --yes --root "$T/v" --keys "$T/k" $cmd
			cd - >/dev/null
			assert_rc 3
			assert_err "warpdrv.db-journal: names a super-journal"
			assert_err "move $T/v/$DB-journal aside"
			outside_same "$cmd with super-journal $super"
			[ "$(snapshot "$T/v")" = "$V0" ] || fail "$cmd: the volume changed"
		done
		# moved aside as the message says, the database is the one before
		mv "$T/v/$DB-journal" "$T/journal.aside"
		wd --root "$T/v" list --installed
		assert_rc 0
		assert_out testpkg
		outside_same "after"
	done
}

# A hot journal with no super-journal is what a crash leaves: it is played
# back (by a command that writes) from the descriptor that was checked, and
# a command that only reads names 'warpdrv recover' and changes nothing.
t_an_ordinary_hot_journal_is_played_back_by_a_writer_only() {
	prepare
	python3 - "$T/v/$DB" <<'PY'
import os, sqlite3, sys
pid = os.fork()
if pid == 0:
    c = sqlite3.connect(sys.argv[1], isolation_level=None)
    c.execute("PRAGMA cache_size = 1")
    c.execute("BEGIN IMMEDIATE")
    for i in range(300):
        c.execute("INSERT INTO history (at, action, package, version) VALUES (?, ?, ?, ?)",
                  ("2026-01-01 00:00:00", "install", "x" * 200, str(i)))
    os._exit(0)
os.waitpid(pid, 0)
PY
	[ -s "$T/v/$DB-journal" ] || fail "no hot journal"
	V0=$(snapshot "$T/v")
	wd --root "$T/v" history
	assert_rc 1
	assert_err "a write of the database was interrupted, and this command only reads; 'warpdrv recover' plays the journal back"
	[ "$(snapshot "$T/v")" = "$V0" ] || fail "a read-only command changed the volume"
	wd --root "$T/v" recover
	assert_rc 0
	[ ! -e "$T/v/$DB-journal" ] || fail "the journal was not played back"
	wd --root "$T/v" --json history
	assert_rc 0
	assert_json 'len(d["history"]) == 1'
	outside_same "playback"
}

t_a_wal_header_is_refused() {
	prepare
	python3 - "$T/v/$DB" <<'PY'
import sys
f = open(sys.argv[1], "r+b"); f.seek(18); f.write(b"\x02\x02"); f.close()
PY
	V0=$(snapshot "$T/v")
	for cmd in "list --installed" "check" "remove testpkg"; do
		wd --yes --root "$T/v" $cmd
		assert_rc 3
		assert_err "$DB: the header says write-ahead-log mode (WAL), which warpdrv never sets"
		[ "$(snapshot "$T/v")" = "$V0" ] || fail "$cmd: the volume changed"
	done
	outside_same "a WAL header"
}

# -wal and -shm of every kind beside the state database and beside the
# stored catalog, with a WAL header and without.
t_wal_and_shm_of_every_kind_are_never_opened() {
	prepare
	wd --root "$T/v" repo add elsewhere "file://$T/nowhere"
	assert_rc 0
	mkdir -p "$T/v/var/cache/warpdrv"
	sqlite3 "$T/v/var/cache/warpdrv/catalog.db" 'CREATE TABLE repo (name TEXT PRIMARY KEY, url TEXT NOT NULL, source TEXT NOT NULL, signed BLOB NOT NULL); PRAGMA user_version = 3;'
	cp "$T/v/$DB" "$T/db.plain"
	local db kind side header cmd
	for db in "$DB" var/cache/warpdrv/catalog.db; do
		for header in plain wal; do
			for side in -wal -shm; do
				for kind in file hardlink symlink fifo device; do
					rm -f "$T/v/$db-wal" "$T/v/$db-shm"
					[ "$header" = wal ] && python3 -c 'import sys; f=open(sys.argv[1],"r+b"); f.seek(18); f.write(b"\x02\x02")' "$T/v/$db"
					case $kind in
					file) printf 'planted\n' >"$T/v/$db$side" ;;
					hardlink) ln "$T/outside/victim" "$T/v/$db$side" ;;
					symlink) ln -s "$T/outside/victim" "$T/v/$db$side" ;;
					fifo) mkfifo "$T/v/$db$side" ;;
					device) mknod "$T/v/$db$side" c 1 3 2>/dev/null || continue ;; # /dev/null's
					esac
					S0=$(snapshot "$T/outside")
					V0=$(snapshot "$T/v")
					cmd="list --installed"
					[ "$db" = "$DB" ] || cmd="search test"
					timeout 20 "$WD" --root "$T/v" $cmd >"$T/out" 2>"$T/err" </dev/null && RC=0 || RC=$?
					ERR=$(cat "$T/err")
					[ "$RC" = 3 ] || fail "$db$side ($kind, $header header): exit $RC, wanted 3: $ERR"
					case "$header$side" in
					wal*) assert_err "$db: the header says write-ahead-log mode" ;;
					*) assert_err "$db$side: "; assert_err "move it aside" ;;
					esac
					outside_same "$db$side ($kind, $header header)"
					[ "$(snapshot "$T/v")" = "$V0" ] || fail "$db$side ($kind): the volume changed"
					rm -f "$T/v/$db-wal" "$T/v/$db-shm"
					[ "$header" = wal ] && python3 -c 'import sys; f=open(sys.argv[1],"r+b"); f.seek(18); f.write(b"\x01\x01")' "$T/v/$db"
				done
			done
		done
	done
}

# A live attacker exchanges the journal warpdrv is writing for a hard link
# to a host file (the test hook pauses warpdrv once the journal is open and
# checked, the test swaps the name, warpdrv goes on): the writes go to the
# file that was checked, and the commit's unlink removes the link alone.
t_a_journal_exchanged_after_its_check_is_not_written_through() {
	prepare
	wd --yes --root "$T/v" remove testpkg
	assert_rc 0
	local pause="$T/pause"
	WARPDRV_PAUSE_JOURNAL=$pause "$WD" --root "$T/v" --keys "$T/k" install "$T/good.wdp" \
		>"$T/o1" 2>"$T/e1" </dev/null &
	local pid=$! i
	for i in $(seq 500); do [ -e "$pause" ] && break; sleep 0.02; done
	[ -e "$pause" ] || fail "warpdrv never opened a journal"
	[ -f "$T/v/$DB-journal" ] || fail "no journal while paused"
	mv "$T/v/$DB-journal" "$T/v/$DB-journal.real"
	ln "$T/outside/victim" "$T/v/$DB-journal"
	rm -f "$pause"
	# later journals pause too: let each go on untouched
	for i in $(seq 500); do
		kill -0 "$pid" 2>/dev/null || break
		rm -f "$pause"
		sleep 0.02
	done
	wait "$pid" || true
	outside_same "an exchanged journal"
	[ "$(stat -c %h "$T/outside/victim")" -le 2 ] || fail "the victim gained links"
}

# Every read-only command on a read-only bind mount of a volume with state
# (the eComStation 2.1 fixture with a package installed) does its work, and
# not a byte changes.
t_read_only_commands_work_on_a_read_only_volume() {
	prepare
	rm -rf "$T/v"
	cp -a "$FIX/volumes/ecs21-e1000" "$T/v"
	wd --root "$T/v" --keys "$T/k" install "$T/good.wdp"
	assert_rc 0
	mkdir -p "$T/ro"
	mount --bind "$T/v" "$T/ro" 2>/dev/null || skip "cannot bind-mount here"
	trap 'umount "$T/ro" 2>/dev/null || :' EXIT
	mount -o remount,ro,bind "$T/ro" || skip "cannot remount read-only here"
	V0=$(snapshot "$T/v")
	printf '00:03.0 0200: 8086:100e (rev 02)\n' >"$T/lspci"
	local cmd
	while IFS='|' read -r want cmd; do
		wd --root "$T/ro" --keys "$T/k" $cmd
		[ "$RC" = "$want" ] || fail "$cmd on a read-only volume: exit $RC, wanted $want: $ERR"
		! grep -qi 'read-only file system' "$T/err" || fail "$cmd: $ERR"
	done <<EOF
0|list
0|list --installed
0|info pcntnd
0|search pcnt
0|history
0|verify
4|license
0|repo list
0|detect --pci lspci:$T/lspci
0|check
0|--dry-run remove testpkg
0|--dry-run install $T/good.wdp
0|--dry-run --pci lspci:$T/lspci setup
EOF
	wd --root "$T/ro" --json list --installed
	assert_json '[p["name"] for p in d["packages"]] == ["testpkg"]'
	wd --root "$T/ro" --pci "lspci:$T/lspci" --dry-run setup
	assert_out "already configured" # the plan, from the volume's files
	umount "$T/ro"
	[ "$(snapshot "$T/v")" = "$V0" ] || fail "the volume changed"
	# an interrupted removal on a read-only volume: told, naming recover, never run
	local n
	for n in $(seq 1 40); do
		rm -rf "$T/v2"
		cp -a "$T/v" "$T/v2"
		WARPDRV_CRASH_AT=$n "$WD" --yes --root "$T/v2" remove testpkg >/dev/null 2>&1 || :
		[ "$(sqlite3 "$T/v2/$DB" 'SELECT count(*) FROM txn')" = 1 ] && break
	done
	[ "$(sqlite3 "$T/v2/$DB" 'SELECT count(*) FROM txn')" = 1 ] || fail "no step left the removal pending"
	mount --bind "$T/v2" "$T/ro"
	mount -o remount,ro,bind "$T/ro"
	V0=$(snapshot "$T/v2")
	wd --root "$T/ro" list --installed
	assert_rc 0
	assert_err "'warpdrv recover' finishes or undoes it"
	wd --root "$T/ro" check
	assert_rc 1
	assert_out "[txn-pending]"
	wd --root "$T/ro" recover
	assert_rc 1
	assert_err "the volume is read-only, and this command writes to it: mount it read-write"
	umount "$T/ro"
	[ "$(snapshot "$T/v2")" = "$V0" ] || fail "the pending volume changed"
}

# The campaign: a planted sidecar of a random kind under a random name of
# the state folder or the cache, then a random command; no host file may
# change, whatever is planted and whatever the command says.
t_random_sidecars_under_every_command_change_no_host_file() {
	prepare
	cp -a "$T/v" "$T/v.base"
	local seed=${WARPDRV_SEED:-$RANDOM} n=0 changes=0
	echo "seed $seed"
	RANDOM=$seed
	local names=(warpdrv.db-journal warpdrv.db-wal warpdrv.db-shm warpdrv.db-journal-x
		lock.wd-new ../../cache/warpdrv/catalog.db-wal ../../cache/warpdrv/catalog.db-journal)
	local cmds=("list --installed" "history" "check" "verify" "license" "repo list"
		"recover" "remove testpkg" "install $T/good.wdp" "--dry-run remove testpkg")
	# bounded: CAMPAIGN_RUNS runs or CAMPAIGN_SECONDS, whichever comes first
	local end=$((SECONDS + ${CAMPAIGN_SECONDS:-25})) max=${CAMPAIGN_RUNS:-60}
	while [ $n -lt "$max" ] && [ $SECONDS -lt $end ]; do
		rm -rf "$T/v"
		cp -a "$T/v.base" "$T/v"
		mkdir -p "$T/v/var/cache/warpdrv"
		local name=${names[RANDOM % ${#names[@]}]} kind=$((RANDOM % 6))
		local p="$T/v/var/lib/warpdrv/$name"
		case $kind in
		0) head -c $((RANDOM % 5000)) /dev/urandom >"$p" ;;
		1) ln "$T/outside/victim" "$p" ;;
		2) ln -s "$T/outside/victim" "$p" ;;
		3) mkfifo "$p" ;;
		4) mkdir -p "$p" ;;
		5) case $name in
		   warpdrv.db-journal) plant_hot_journal "$T/v/$DB" "$T/outside/victim" ;;
		   *) ln -s ../../../../outside "$p" ;;
		   esac ;;
		esac
		local cmd=${cmds[RANDOM % ${#cmds[@]}]}
		(cd "$T" && timeout 20 "$WD" --yes --root "$T/v" --keys "$T/k" $cmd >/dev/null 2>"$T/err" </dev/null) || true
		if [ "$(snapshot "$T/outside")" != "$S0" ] || [ "$(cat "$T/outside/victim")" != "a host file" ]; then
			changes=$((changes + 1))
			echo "    host changed: $name (kind $kind) under '$cmd': $(cat "$T/err")"
			rm -rf "$T/outside"
			mkdir -p "$T/outside/folder"
			printf 'a host file\n' >"$T/outside/victim"
			printf 'secret\n' >"$T/outside/secret"
			chmod 600 "$T/outside/secret"
		fi
		n=$((n + 1))
	done
	echo "$n runs, $changes host changes"
	[ -z "${CAMPAIGN_REPORT:-}" ] || echo "seed $seed: $n runs, $changes host changes" >>"$CAMPAIGN_REPORT"
	[ "$changes" = 0 ] || fail "$changes of $n runs changed a host file (seed $seed)"
	[ "$n" -ge 10 ] || fail "only $n runs"
}

run_tests
