#!/usr/bin/env bash
# What a hostile volume or network can make the front end do: escape
# sequences planted in CONFIG.SYS or the volume's database are shown as \x1b,
# never sent to the terminal; --json is one document even when a repository
# is down; a subscription repository's key goes only to its own host and the
# mirrors its signed index lists, never to a mirror the database alone names;
# nothing is downloaded before the user agreed (nor under --dry-run). Every
# server listens on 127.0.0.1 only and is stopped when its test ends.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pkg_lib.sh"

NET="--connect-timeout 2 --speed-limit 1000 --speed-time 1"
ESC=$'\033'

# Made once: a repository key, a licence key, testpkg 1.0 and 2.0 each in a
# repository folder of its own, a test CA and a certificate for 127.0.0.1.
FIXT="$TESTTMP/fixture"
mkdir -p "$FIXT/k/repo" "$FIXT/k/license" "$FIXT/r1" "$FIXT/r2" "$FIXT/recipe"
"$WDA" keygen --out "$FIXT/k/repo/test" >/dev/null
"$WDA" keygen --out "$FIXT/k/license/lic" >/dev/null
cat >"$FIXT/recipe/MANIFEST" <<'M'
format 1
name testpkg
version 1.0
released 2024-01-01
summary A package for the hostile output tests
kind psd
file TEST.OS2 \IBMCOM\MACS\TEST.OS2
M
head -c 20000 /dev/urandom >"$FIXT/recipe/TEST.OS2"
"$WDA" -q pack "$FIXT/recipe" --key "$FIXT/k/repo/test.key" --out "$FIXT/r1/" >/dev/null
"$WDA" -q index "$FIXT/r1" --key "$FIXT/k/repo/test.key" --serial 1 >/dev/null
sed -i 's/^version 1.0/version 2.0/' "$FIXT/recipe/MANIFEST"
"$WDA" -q pack "$FIXT/recipe" --key "$FIXT/k/repo/test.key" --out "$FIXT/r2/" >/dev/null
"$WDA" -q index "$FIXT/r2" --key "$FIXT/k/repo/test.key" --serial 1 >/dev/null
make_test_ca "$FIXT"

# No raw ESC byte on stdout or stderr of the last run.
no_raw_escape() {
	[ "$(cat "$T/out" "$T/err" | grep -c "$ESC" || true)" = 0 ] ||
		fail "a raw ESC reached the terminal: $(cat -v "$T/out" "$T/err")"
}

# Plants sql in the volume's database (python3's sqlite3).
plant() { # VOLUME SQL [ARGS...]
	python3 - "$@" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1] + "/var/lib/warpdrv/warpdrv.db")
# \xNN in an argument is that byte (a blob: any byte, as a crafted file holds)
db.execute(sys.argv[2], [a.encode().decode("unicode_escape").encode("latin-1") if "\\x" in a else a
                         for a in sys.argv[3:]])
db.commit()
PY
}

# start_server NAME [faultserver options]: serves $T/www; ${NAME}_URL is its
# base, its faults come from $T/NAME.faults, its requests go to $T/NAME.log.
start_server() {
	local name=$1
	shift
	: >"$T/$name.log"
	fault_server "$T/$name." "${name}_URL" "$@"
}

t_escape_sequences_in_config_sys_are_shown_escaped_by_check() {
	cp -a "$FIX/volumes/ecs21-e1000" "$T/v"
	python3 - "$T/v/CONFIG.SYS" <<'PY'
import sys
p = sys.argv[1]
s = open(p, "rb").read()
old = b"DEVICE=C:\\IBMCOM\\MACS\\E1000.OS2\r\n"
assert old in s
s = s.replace(old, old + b"DEVICE=C:\\IBMCOM\\MACS\\\x1b]0;pwned\x07X.OS2\r\n"
              b"BASEDEV=\x1b[2JFOO.ADD\r\n")
open(p, "wb").write(s)
PY
	before=$(snapshot "$T/v")
	wd --root "$T/v" check
	assert_rc 1
	assert_out 'loads C:\IBMCOM\MACS\\x1b]0;pwned\x07X.OS2, which is not on the volume'
	assert_out 'BASEDEV= loads \x1b[2JFOO.ADD, which is not on the volume'
	no_raw_escape
	# --json: the encoder's \u escapes, one document
	wd --root "$T/v" --json check
	assert_rc 1
	grep -qF '\u001b]0;pwned\u0007X.OS2' "$T/out" || fail "no \\u001b in: $OUT"
	no_raw_escape
	assert_json 'any("\x1b[2JFOO.ADD" in f["message"] for f in d["findings"])'
	[ "$(snapshot "$T/v")" = "$before" ] || fail "check changed the volume"
}

t_escape_sequences_in_the_database_are_shown_escaped() {
	make_volume "$T/v"
	wd --root "$T/v" repo add main http://127.0.0.1:1/r/ --mirror http://127.0.0.1:1/m/
	assert_rc 0
	wd --root "$T/v" --keys "$FIXT/k" --repo "$FIXT/r1" -y install testpkg
	assert_rc 0
	plant "$T/v" "UPDATE repository SET url = ? WHERE name = 'main'" 'http://e/\x1b]0;title\x07\x1b[2J'
	plant "$T/v" "UPDATE repository_mirror SET url = ? WHERE repository = 'main'" 'http://m/\x9b2J'
	plant "$T/v" "INSERT INTO history (at, action, package, version) VALUES (?, ?, ?, ?)" \
		'2026-01-01 \x1b[2J' 'install' 'evil\x1b]0;pwned\x07' '1.0\x1b[31m'
	before=$(snapshot "$T/v")
	wd --root "$T/v" repo list
	assert_rc 0
	assert_out 'http://e/\x1b]0;title\x07\x1b[2J'
	assert_out 'mirror http://m/\x9b2J'
	no_raw_escape
	grep -q $'\x9b' "$T/out" && fail "a raw C1 CSI reached the terminal"
	wd --root "$T/v" history
	assert_rc 0
	assert_out 'evil\x1b]0;pwned\x07 1.0\x1b[31m'
	assert_out '2026-01-01 \x1b[2J'
	no_raw_escape
	wd --root "$T/v" --json history
	assert_rc 0
	no_raw_escape
	assert_json 'any(h["package"] == "evil\x1b]0;pwned\x07" for h in d["history"])'
	[ "$(snapshot "$T/v")" = "$before" ] || fail "repo list or history changed the volume"
	# the installed package's row: list, owns, verify
	plant "$T/v" "UPDATE package SET version = ?, summary = ? WHERE name = 'testpkg'" \
		'1.0\x1b[2J' 'sum\x1b]0;t\x07'
	printf 'changed\r\n' >"$T/v/IBMCOM/MACS/TEST.OS2"
	before=$(snapshot "$T/v")
	wd --root "$T/v" list --installed
	assert_rc 0
	assert_out 'testpkg    1.0\x1b[2J sum\x1b]0;t\x07'
	no_raw_escape
	wd --root "$T/v" owns 'C:\IBMCOM\MACS\TEST.OS2'
	assert_rc 0
	assert_out 'belongs to testpkg 1.0\x1b[2J.'
	no_raw_escape
	wd --root "$T/v" verify
	assert_rc 3
	assert_err 'TEST.OS2: size differs (testpkg)'
	no_raw_escape
	wd --root "$T/v" --json verify
	assert_rc 3
	no_raw_escape
	python3 -c 'import json,sys; json.loads(open(sys.argv[1]).read())' "$T/out" || fail "not one JSON document: $OUT"
	# an error message that quotes database text is escaped too
	wd --root "$T/v" repo remove $'evil\x1b[2J'
	assert_rc 1
	assert_err "no repository named 'evil\\x1b[2J'"
	no_raw_escape
	[ "$(snapshot "$T/v")" = "$before" ] || fail "a read changed the volume"
}

# A database listing a thousand mirrors: the first 16 (what 'repo add'
# accepts) are read, so update does not try a thousand hosts in turn.
t_a_thousand_planted_mirrors_are_cut_to_sixteen() {
	make_volume "$T/v"
	port=$(free_port)
	wd --root "$T/v" repo add main "http://127.0.0.1:$port/r/"
	assert_rc 0
	python3 -c 'import sqlite3,sys; db = sqlite3.connect(sys.argv[1]); db.executemany("INSERT INTO repository_mirror (repository, seq, url) VALUES (?, ?, ?)", [("main", i, "http://127.0.0.1:%s/m%d/" % (sys.argv[2], i)) for i in range(1000)]); db.commit()' \
		"$T/v/var/lib/warpdrv/warpdrv.db" "$port"
	before=$(snapshot "$T/v")
	wd --root "$T/v" --json repo list
	assert_rc 0
	assert_json 'len(d["repositories"][0]["mirrors"]) == 16 and d["repositories"][0]["mirrors"][15].endswith("/m15/")'
	wd --root "$T/v" --keys "$FIXT/k" $NET --json update
	assert_rc 1
	assert_json '"all 17 locations failed" in d["error"]["message"]'
	[ "$(snapshot "$T/v")" = "$before" ] || fail "a failed update changed the volume"
}

# bench labels its runs with the driver CONFIG.SYS loads: a planted name is
# escaped where the client says it and where the report prints it.
t_bench_labels_from_the_volume_are_shown_escaped() {
	export XDG_STATE_HOME="$T/state"
	cp -a "$FIX/volumes/ecs21-e1000" "$T/g"
	python3 - "$T/g/CONFIG.SYS" <<'PY'
import sys
p = sys.argv[1]
s = open(p, "rb").read()
assert b"\\MACS\\E1000.OS2" in s
open(p, "wb").write(s.replace(b"\\MACS\\E1000.OS2", b"\\MACS\\\x1b]0;t\x07X.OS2"))
PY
	port=$(free_port)
	timeout 60 "$WD" bench server --bind 127.0.0.1 --port "$port" --seconds 0.1 \
		--db "$T/server.db" >"$T/server.log" 2>&1 &
	SERVERS="$SERVERS $!"
	trap stop_servers EXIT
	for _ in $(seq 50); do grep -q '^Listening' "$T/server.log" && break; sleep 0.1; done
	before=$(snapshot "$T/g")
	run timeout 60 "$WD" --root "$T/g" bench client 127.0.0.1 --port "$port" --seconds 0.1 \
		--db "$T/c.db"
	assert_rc 0
	assert_out "The volume's CONFIG.SYS loads \x1b]0;t\x07X.OS2 (line 19)"
	no_raw_escape
	wd bench report --db "$T/c.db"
	assert_rc 0
	assert_out '| block | \x1b]0;T\x07X Tx | \x1b]0;T\x07X Rx |'
	no_raw_escape
	[ "$(snapshot "$T/g")" = "$before" ] || fail "bench changed the volume"
}

# setup's diff shows the CONFIG.SYS lines around a change: escaped too.
t_setup_shows_planted_escapes_in_its_diff_escaped() {
	activated_copy "$T/g"
	python3 - "$T/g/CONFIG.SYS" <<'PY'
import sys
p = sys.argv[1]
s = open(p, "rb").read()
old = b"DEVICE=C:\\IBMCOM\\MACS\\E1000.OS2\r\n"
assert old in s
open(p, "wb").write(s.replace(old, old + b"REM \x1b]0;pwned\x07 \x1b[2J\r\n"))
PY
	before=$(snapshot "$T/g")
	wd --root "$T/g" --pci "lspci:$FIX/pci/vbox-82540em.lspci-n" setup --dry-run
	assert_rc 0
	assert_out '+DEVICE=C:\IBMCOM\MACS\MMLEM.OS2'
	assert_out ' REM \x1b]0;pwned\x07 \x1b[2J'
	no_raw_escape
	wd --root "$T/g" --pci "lspci:$FIX/pci/vbox-82540em.lspci-n" --json setup --dry-run
	assert_rc 0
	no_raw_escape
	assert_json '"REM \x1b]0;pwned\x07 \x1b[2J" in d["diff"]'
	[ "$(snapshot "$T/g")" = "$before" ] || fail "a dry run changed the volume"
}

# A repository that is down: --json update is one document, the failure
# inside it, and exit 1.
t_json_update_with_a_dead_repository_is_one_document() {
	make_volume "$T/v"
	port=$(free_port)
	wd --root "$T/v" repo add dead "http://127.0.0.1:$port/"
	assert_rc 0
	before=$(snapshot "$T/v")
	wd --root "$T/v" --keys "$FIXT/k" $NET --json update
	assert_rc 1
	assert_json 'd["error"]["exit_code"] == 1'
	assert_json '"repository dead" in d["error"]["message"]'
	assert_json 'd["repositories"][0]["name"] == "dead" and d["repositories"][0]["status"] == "failed"'
	[ "$(grep -c '^{' "$T/out")" = 1 ] || fail "more than one document: $OUT"
	[ -z "$ERR" ] || fail "--json wrote to stderr: $ERR"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "a failed update changed the volume"
	# the text run says the same on stderr
	wd --root "$T/v" --keys "$FIXT/k" $NET update
	assert_rc 1
	assert_err "repository dead"
	assert_err "(the previous catalog of each failed repository stays in use)"
}

# The subscription repository sub at $P_URL/a/ (with the key as its
# credentials), the mirror its signed index lists at $S_URL/s/ (asking for
# them too), and a mirror planted in the database at $D_URL/d/.
subscription_setup() {
	make_volume "$T/v"
	cp -R "$FIXT/k" "$T/k"
	mkdir -p "$T/www"
	cp -R "$FIXT/r1" "$T/www/a"
	cp -R "$FIXT/r1" "$T/www/s"
	cp -R "$FIXT/r1" "$T/www/d"
	start_server P --cert "$FIXT/srv.pem" --key "$FIXT/srv.key" --auth "@$T/auth"
	start_server S --cert "$FIXT/srv.pem" --key "$FIXT/srv.key" --auth "@$T/auth"
	start_server D --cert "$FIXT/srv.pem" --key "$FIXT/srv.key"
	wda --json issue --key "$T/k/license/lic.key" --customer 7 --entitlements drivers \
		--expires 2099-01-01 --repo "$P_URL/a/"
	assert_rc 0
	id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["key_id"])' "$T/out")
	key=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["key"])' "$T/out")
	printf '%s:%s\n' "$id" "$key" >"$T/auth"
	wda -q index "$T/www/a" --key "$T/k/repo/test.key" --serial 2 --mirror "$S_URL/s/"
	assert_rc 0
	cp "$T/www/a/INDEX" "$T/www/d/INDEX"
	w() { wd --root "$T/v" --keys "$T/k" --cacert "$FIXT/ca.pem" $NET "$@"; }
	w activate "$key"
	assert_rc 0
	w repo add sub "$P_URL/a/" --subscription
	assert_rc 0
	plant "$T/v" "INSERT INTO repository_mirror (repository, seq, url) VALUES ('sub', 0, ?)" "$D_URL/d/"
}

t_a_mirror_planted_in_the_database_never_gets_the_key() {
	subscription_setup
	# the repository's own host is down for the index: the planted mirror is asked without the key
	echo "/a/INDEX 500" >"$T/P.faults"
	w update
	assert_rc 0
	assert_out "from $D_URL/d/"
	grep -q "GET /a/INDEX range=- auth=yes" "$T/P.log" || fail "the repository's own host was not sent the key: $(cat "$T/P.log")"
	grep -q "GET /d/INDEX range=- auth=no" "$T/D.log" || fail "the planted mirror was not asked: $(cat "$T/D.log")"
	! grep -q "auth=yes" "$T/D.log" || fail "the planted mirror got the key: $(cat "$T/D.log")"
	# a package the host does not have: the planted mirror is asked without
	# the key, the signed index's mirror with it
	: >"$T/P.faults"
	echo "/a/testpkg-1.0.wdp 404" >"$T/P.faults"
	echo "/d/testpkg-1.0.wdp 404" >"$T/D.faults"
	w install testpkg
	assert_rc 0
	assert_out "Installed testpkg 1.0"
	grep -q "GET /d/testpkg-1.0.wdp range=- auth=no" "$T/D.log" || fail "the planted mirror was not tried: $(cat "$T/D.log")"
	! grep -q "auth=yes" "$T/D.log" || fail "the planted mirror got the key: $(cat "$T/D.log")"
	grep -q "GET /s/testpkg-1.0.wdp range=- auth=yes" "$T/S.log" || fail "the signed mirror did not get the key: $(cat "$T/S.log")"
	# the key is never part of a URL that is printed
	! grep -qF "$key" "$T/out" "$T/err" || fail "the key was printed"
	! grep -qF "$id" "$T/err" || fail "the key id was printed in a URL"
}

# 'repo add' refuses http:// for a subscription repository; a row planted
# with it is refused before any connection, and its http mirror on the same
# host is another place: asked without the key.
t_a_subscription_row_with_http_gets_no_key() {
	subscription_setup
	start_server H
	plant "$T/v" "UPDATE repository SET url = ? WHERE name = 'sub'" "$H_URL/d/"
	plant "$T/v" "DELETE FROM repository_mirror"
	before=$(snapshot "$T/v")
	w update
	assert_rc 2
	assert_err "a subscription key is sent over https:// only"
	[ ! -s "$T/H.log" ] || fail "the http repository was asked: $(cat "$T/H.log")"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "a refused update changed the volume"
	plant "$T/v" "UPDATE repository SET url = ? WHERE name = 'sub'" "$P_URL/a/"
	plant "$T/v" "INSERT INTO repository_mirror (repository, seq, url) VALUES ('sub', 0, ?)" "$H_URL/d/"
	echo "/a/INDEX 500" >"$T/P.faults"
	w update
	assert_rc 0
	grep -q "GET /d/INDEX range=- auth=no" "$T/H.log" || fail "the http mirror was not asked: $(cat "$T/H.log")"
	! grep -q "auth=yes" "$T/H.log" || fail "the key went over http: $(cat "$T/H.log")"
}

# testpkg 1.0 installed from a local folder; 2.0 served over http.
upgrade_setup() {
	make_volume "$T/v"
	mkdir -p "$T/www"
	cp -R "$FIXT/r2" "$T/www/r2"
	wd --root "$T/v" --keys "$FIXT/k" --repo "$FIXT/r1" -y install testpkg
	assert_rc 0
	start_server H
	u() { wd --root "$T/v" --keys "$FIXT/k" $NET --repo "$H_URL/r2/" "$@"; }
	PKG2="GET /r2/testpkg-2.0.wdp"
}

t_nothing_is_downloaded_before_an_upgrade_is_agreed_to() {
	upgrade_setup
	before=$(snapshot "$T/v")
	# no terminal and no --yes: refused before any download
	u upgrade
	assert_rc 2
	assert_err "there is no terminal to ask on: add --yes to apply"
	assert_out "Upgrade testpkg 1.0 -> 2.0 (download "
	! grep -q "$PKG2" "$T/H.log" || fail "downloaded before asking: $(cat "$T/H.log")"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "a refused upgrade changed the volume"
	# --dry-run: the plan from the signed index, nothing downloaded
	u upgrade --dry-run
	assert_rc 0
	assert_out "Dry run: nothing downloaded or written (1 package"
	u --json upgrade --dry-run
	assert_rc 0
	assert_json 'd["dry_run"] and d["download_count"] == 1 and d["packages"][0]["upgrade_to"] == "2.0"'
	u install testpkg=2.0 --dry-run
	assert_rc 0
	assert_out "download"
	assert_out "not done: --dry-run downloads nothing"
	! grep -q "$PKG2" "$T/H.log" || fail "--dry-run downloaded: $(cat "$T/H.log")"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "a dry run changed the volume"
	# a "no" typed at a terminal
	python3 - "$WD" --root "$T/v" --keys "$FIXT/k" $NET --repo "$H_URL/r2/" upgrade >"$T/pty" <<'PY'
import os, pty, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
out = b""
answered = False
while True:
    try:
        chunk = os.read(fd, 65536)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
    if not answered and b"[y/N]" in out:
        os.write(fd, b"n\n")
        answered = True
_, status = os.waitpid(pid, 0)
sys.stdout.write(out.decode("utf-8", "replace"))
sys.stdout.write("\nexit %d\n" % os.waitstatus_to_exitcode(status))
PY
	grep -q "Download these packages and upgrade? \[y/N\]" "$T/pty" || fail "not asked: $(cat "$T/pty")"
	grep -q "nothing changed: not confirmed" "$T/pty" || fail "no refusal: $(cat "$T/pty")"
	grep -q "^exit 1" "$T/pty" || fail "a no is not exit 1: $(cat "$T/pty")"
	! grep -q "$PKG2" "$T/H.log" || fail "downloaded before the yes: $(cat "$T/H.log")"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "an upgrade answered no changed the volume"
	# --yes: one download, into the cache folder
	u upgrade --yes
	assert_rc 0
	assert_out "Upgraded testpkg to 2.0"
	[ "$(grep -c "$PKG2" "$T/H.log")" = 1 ] || fail "not one download: $(cat "$T/H.log")"
	[ -f "$T/v/var/cache/warpdrv/packages/testpkg-2.0.wdp" ] || fail "not downloaded into the cache folder"
}

# setup reads the NIC driver it chose (its NIF); one a remote repository
# offers is downloaded only after a yes: refused with no terminal, not done
# under --dry-run, done with --yes.
t_setup_downloads_the_driver_only_once_agreed_to() {
	mkdir -p "$T/www/e"
	cp -R "$FIXT/k" "$T/k"
	cp -R "$SRC/drivers/e1000" "$T/e1000"
	sed -i 's/^version .*/version 9.00/' "$T/e1000/MANIFEST"
	wda -q pack "$T/e1000" --key "$T/k/repo/test.key" --out "$T/www/e/"
	assert_rc 0
	wda -q index "$T/www/e" --key "$T/k/repo/test.key"
	assert_rc 0
	cp -a "$FIX/volumes/ecs21-e1000" "$T/g"
	start_server H
	s() { wd --root "$T/g" --keys "$T/k" $NET --repo "$H_URL/e/" \
		--pci "lspci:$FIX/pci/vbox-82540em.lspci-n" "$@"; }
	before=$(snapshot "$T/g")
	s setup
	assert_rc 2
	assert_err "setup must download e1000 9.00 ("
	assert_err "there is no terminal to ask on: add --yes"
	s setup --dry-run
	assert_rc 1
	assert_err "setup --dry-run downloads nothing, and the plan needs e1000 9.00"
	s --json setup --dry-run
	assert_rc 1
	assert_json 'd["error"]["exit_code"] == 1 and "downloads nothing" in d["error"]["message"]'
	! grep -q "GET /e/e1000-9.00.wdp" "$T/H.log" || fail "downloaded before a yes: $(cat "$T/H.log")"
	[ "$(snapshot "$T/g")" = "$before" ] || fail "a refused setup changed the volume"
	s setup --yes
	assert_rc 0
	[ "$(grep -c "GET /e/e1000-9.00.wdp" "$T/H.log")" = 1 ] || fail "not one download: $(cat "$T/H.log")"
	[ -f "$T/g/var/cache/warpdrv/packages/e1000-9.00.wdp" ] || fail "not downloaded into the cache folder"
}

run_tests
