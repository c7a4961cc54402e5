#!/usr/bin/env bash
# Remote repositories: repo add/list/remove, update, installs over HTTP(S)
# from nginx and from tests/http/faultserver.py (drops, stalls, errors, long
# and wrong bodies, replayed, expired and tampered indexes, 401), mirrors,
# resume, the subscription credentials, the progress bar. Every server
# listens on 127.0.0.1 only and is stopped when its test ends.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pkg_lib.sh"

# Short time-outs so that a stalled server costs a second, not thirty.
NET="--connect-timeout 2 --speed-limit 1000 --speed-time 1"

# Made once per script: a repository key, a licence key, a 200 KB package in
# a served folder, a test CA and a server certificate for 127.0.0.1.
FIXT="$TESTTMP/fixture"
mkdir -p "$FIXT/k/repo" "$FIXT/k/license" "$FIXT/srv" "$FIXT/recipe"
"$WDA" keygen --out "$FIXT/k/repo/test" >/dev/null
"$WDA" keygen --out "$FIXT/k/license/lic" >/dev/null
cat >"$FIXT/recipe/MANIFEST" <<'M'
format 1
name testpkg
version 1.0
released 2024-01-01
summary A package for the remote tests
kind psd
file TEST.OS2 \IBMCOM\MACS\TEST.OS2
M
head -c 200000 /dev/urandom >"$FIXT/recipe/TEST.OS2"
"$WDA" -q pack "$FIXT/recipe" --key "$FIXT/k/repo/test.key" --out "$FIXT/srv/" >/dev/null
"$WDA" -q index "$FIXT/srv" --key "$FIXT/k/repo/test.key" --serial 5 >/dev/null
# a small package in a repository of its own, for the slow progress test
mkdir -p "$FIXT/tiny" "$FIXT/srv2"
sed 's/^name testpkg/name tinypkg/; s/TEST.OS2/TINY.OS2/g' "$FIXT/recipe/MANIFEST" >"$FIXT/tiny/MANIFEST"
head -c 8000 /dev/urandom >"$FIXT/tiny/TINY.OS2"
"$WDA" -q pack "$FIXT/tiny" --key "$FIXT/k/repo/test.key" --out "$FIXT/srv2/" >/dev/null
"$WDA" -q index "$FIXT/srv2" --key "$FIXT/k/repo/test.key" --serial 1 >/dev/null
PKG=testpkg-1.0.wdp
PKGSIZE=$(stat -c %s "$FIXT/srv/$PKG")
make_test_ca "$FIXT"

# $T/v (a volume), $T/k (the keys), $T/www/a and $T/www/b: the repository
# twice, as a primary and a mirror served by the same server.
setup() {
	make_volume "$T/v"
	cp -R "$FIXT/k" "$T/k"
	mkdir -p "$T/www"
	cp -R "$FIXT/srv" "$T/www/a"
	cp -R "$FIXT/srv" "$T/www/b"
}

w() { wd --root "$T/v" --keys "$T/k" $NET "$@"; }

# The volume, but for the download cache (where a partial download stays to
# be resumed): what "unchanged" means after a failed command.
catalog_sum() { sha256sum "$T/v/var/cache/warpdrv/catalog.db" | cut -d' ' -f1; }

t_update_then_install_from_the_cache_offline() {
	setup
	start_fault
	w repo add main "$URL/a/" --mirror "$URL/b/"
	assert_rc 0
	w update
	assert_rc 0
	assert_out "main: updated, serial 5, 1 packages"
	w --json repo list
	assert_json 'd["repositories"][0]["name"] == "main" and d["repositories"][0]["serial"] == 5 and d["repositories"][0]["mirrors"] == ["'"$URL"'/b/"]'
	w --json list
	assert_json '"testpkg" in [p["name"] for p in d["packages"]]'
	w install testpkg
	assert_rc 0
	assert_same_file "$FIXT/recipe/TEST.OS2" "$T/v/IBMCOM/MACS/TEST.OS2"
	assert_same_file "$FIXT/srv/$PKG" "$T/v/var/cache/warpdrv/packages/$PKG"
	w --yes remove testpkg
	assert_rc 0
	stop_servers
	# no network now: the stored catalog and the cached package suffice
	w list
	assert_rc 0
	assert_out testpkg
	w install testpkg
	assert_rc 0
	assert_same_file "$FIXT/recipe/TEST.OS2" "$T/v/IBMCOM/MACS/TEST.OS2"
	w update
	assert_rc 1
	assert_err "repository main: $URL/a/: all 2 locations failed"
	assert_err "(the previous catalog of each failed repository stays in use)"
}

t_each_fault_moves_on_to_the_next_mirror() {
	setup
	start_fault
	w repo add main "$URL/a/" --mirror "$URL/b/"
	for mode in drop stall 404 500 long wrong; do
		echo "/a/INDEX $mode" >"$T/faults"
		echo "/a/$PKG $mode" >>"$T/faults"
		rm -rf "$T/v/var/cache"
		w -v update
		assert_rc 0
		assert_out "(from $URL/b/)"
		assert_err "$URL/a/INDEX"
		w -v install testpkg
		assert_rc 0
		assert_err "$URL/a/$PKG"
		assert_same_file "$FIXT/recipe/TEST.OS2" "$T/v/IBMCOM/MACS/TEST.OS2"
		w --yes remove testpkg
		assert_rc 0
	done
	grep -q "^GET /b/$PKG" "$T/log" || fail "the mirror was never asked"
}

# When every mirror fails: the right code, each failure named, nothing changed.
t_all_mirrors_failing_change_nothing() {
	setup
	start_fault
	w repo add main "$URL/a/" --mirror "$URL/b/"
	w update
	assert_rc 0
	before=$(snapshot "$T/v" var/cache/warpdrv/packages)
	for fault in "404 1 HTTP 404" "500 1 HTTP 500" "stall 1 stalled" "drop 1 the connection dropped" \
		"long 3 longer than the $PKGSIZE bytes" "wrong 3 does not match the SHA-256"; do
		set -- $fault
		mode=$1 code=$2
		shift 2
		printf '* %s\n' "$mode" >"$T/faults"
		w install testpkg
		assert_rc "$code"
		assert_err "$PKG: all 2 locations failed"
		assert_err "$URL/a/$PKG: $*"
		assert_err "$URL/b/$PKG: $*"
		rm -f "$T/v/var/cache/warpdrv/packages/$PKG.part"
		[ "$(snapshot "$T/v" var/cache/warpdrv/packages)" = "$before" ] || fail "$mode: the volume changed"
		w update
		[ "$RC" -ne 0 ] || fail "$mode: update succeeded"
		[ "$(snapshot "$T/v" var/cache/warpdrv/packages)" = "$before" ] || fail "$mode: update changed the volume"
	done
}

t_update_refuses_a_replayed_older_index() {
	setup
	start_fault
	w repo add main "$URL/a/"
	cp "$T/www/a/INDEX" "$T/INDEX.5"
	"$WDA" -q index "$T/www/a" --key "$T/k/repo/test.key" --serial 6 >/dev/null
	w update
	assert_rc 0
	assert_out "serial 6"
	sum=$(catalog_sum)
	before=$(snapshot "$T/v" var/cache/warpdrv/packages)
	cp "$T/INDEX.5" "$T/www/a/INDEX"
	w update
	assert_rc 3
	assert_err "repository main: $URL/a/: index serial 5 is older than serial 6 already seen"
	[ "$(catalog_sum)" = "$sum" ] || fail "the catalog changed"
	[ "$(snapshot "$T/v" var/cache/warpdrv/packages)" = "$before" ] || fail "the volume changed"
	# even with the stored catalog gone, the database remembers serial 6
	rm "$T/v/var/cache/warpdrv/catalog.db"
	w update
	assert_rc 3
	assert_err "older than serial 6"
}

t_update_refuses_an_expired_or_tampered_index() {
	setup
	start_fault
	w repo add main "$URL/a/"
	w update
	assert_rc 0
	before=$(snapshot "$T/v" var/cache/warpdrv/packages)
	WARPDRV_NOW=2099-01-01 w update
	assert_rc 3
	assert_err "repository main: $URL/a/INDEX: expired on"
	[ "$(snapshot "$T/v" var/cache/warpdrv/packages)" = "$before" ] || fail "the volume changed (expired)"
	sed -i 's/A package for the remote tests/A package for the evil tests/' "$T/www/a/INDEX"
	w update
	assert_rc 3
	assert_err "repository main: $URL/a/INDEX"
	assert_err "signature"
	[ "$(snapshot "$T/v" var/cache/warpdrv/packages)" = "$before" ] || fail "the volume changed (tampered)"
	w list
	assert_out "A package for the remote tests"
}

t_resume_asks_only_for_the_missing_bytes() {
	setup
	start_fault
	w repo add main "$URL/a/"
	w update
	echo "/a/$PKG drop" >"$T/faults"
	w install testpkg
	assert_rc 1
	assert_err "connection dropped"
	have=$(stat -c %s "$T/v/var/cache/warpdrv/packages/$PKG.part")
	[ "$have" -eq $((PKGSIZE / 2)) ] || fail "partial file holds $have bytes"
	: >"$T/faults"
	: >"$T/log"
	w install testpkg
	assert_rc 0
	grep -qx "GET /a/$PKG range=bytes=$have- auth=no" "$T/log" ||
		fail "the resumed request was: $(cat "$T/log")"
	assert_same_file "$FIXT/recipe/TEST.OS2" "$T/v/IBMCOM/MACS/TEST.OS2"
}

# A partial download planted as a hard link to a host file: resuming would
# append the server's bytes to that file, so it is refused (exit 1, its
# name); the host file keeps its bytes.
t_a_partial_download_linked_to_a_host_file_is_refused() {
	setup
	start_fault
	w repo add main "$URL/a/"
	w update
	assert_rc 0
	mkdir -p "$T/outside" "$T/v/var/cache/warpdrv/packages"
	printf 'a host file\n' >"$T/outside/victim"
	ln "$T/outside/victim" "$T/v/var/cache/warpdrv/packages/$PKG.part"
	: >"$T/log"
	w install testpkg
	assert_rc 1
	assert_err "$PKG.part: has 2 hard links"
	[ "$(cat "$T/outside/victim")" = "a host file" ] || fail "the host file was written"
	[ ! -s "$T/log" ] || fail "a download started: $(cat "$T/log")"
	[ ! -e "$T/v/IBMCOM/MACS/TEST.OS2" ] || fail "the package was installed"
}

# A server that sends Last-Modified and no ETag (Python's http.server, which
# answers If-Modified-Since with 304 by whole seconds): an index rewritten
# within the second of the last fetch must not be missed. Its Last-Modified
# is not a second older than the answer's Date, so it is not kept, and the
# next update asks for the index whole and sees the new serial.
t_an_index_changed_within_its_second_is_seen() {
	setup
	local port
	port=$(free_port)
	python3 -m http.server --bind 127.0.0.1 --directory "$T/www" "$port" \
		>"$T/httpd.log" 2>&1 &
	SERVERS="$SERVERS $!"
	trap stop_servers EXIT
	python3 - "$port" <<'PY' || fail "the test server did not start"
import socket, sys, time
for _ in range(100):
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1).close()
        sys.exit(0)
    except OSError:
        time.sleep(0.05)
sys.exit(1)
PY
	# the index's time a few seconds ahead: its Last-Modified is not a
	# second older than the server's Date, as for a file just rewritten
	local when=$(($(date +%s) + 5))
	touch -d "@$when" "$T/www/a/INDEX"
	w repo add main "http://127.0.0.1:$port/a/"
	w update
	assert_rc 0
	assert_out "serial 5"
	"$WDA" -q index "$T/www/a" --key "$T/k/repo/test.key" --serial 6 >/dev/null
	touch -d "@$when" "$T/www/a/INDEX" # rewritten within the same second
	w update
	assert_rc 0
	assert_out "serial 6"
	! grep -q '"GET /a/INDEX HTTP/1.1" 304' "$T/httpd.log" ||
		fail "the changed index was answered 304: $(cat "$T/httpd.log")"
	# an old enough Last-Modified is kept: an unchanged index is then a 304
	touch -d "@$(($(date +%s) - 10))" "$T/www/a/INDEX"
	w update
	assert_rc 0
	w update
	assert_rc 0
	grep -q '"GET /a/INDEX HTTP/1.1" 304' "$T/httpd.log" ||
		fail "an unchanged index with an old Last-Modified was not a 304: $(cat "$T/httpd.log")"
}

t_https_needs_the_ca() {
	setup
	start_fault --cert "$FIXT/srv.pem" --key "$FIXT/srv.key"
	w repo add main "$URL/a/"
	w update
	assert_rc 1
	assert_err "certificate"
	assert_err "--cacert FILE"
	[ ! -e "$T/v/var/cache/warpdrv/catalog.db" ] || fail "a catalog was written"
	w --cacert "$FIXT/ca.pem" update
	assert_rc 0
	w --cacert "$FIXT/ca.pem" install testpkg
	assert_rc 0
	# --repo for one run, over https too
	wd --root "$T/v" --keys "$T/k" --cacert "$FIXT/ca.pem" --repo "$URL/b/" --json list
	assert_json '"'"$URL"'/b/" in [p["repository"] for p in d["packages"]]'
	# detect, which starts OpenSSL without what TLS needs when it has nothing
	# to fetch, keeps it for a repository it reads over https
	wd --keys "$T/k" --cacert "$FIXT/ca.pem" --repo "$URL/b/" --json detect \
		--pci "lspci:$FIX/pci/vbox-82540em.lspci-n"
	assert_rc 0
	assert_json "[x.get('package') for x in d['devices'] if x['network']] == ['e1000']"
	[ -z "$ERR" ] || fail "detect warned: $ERR"
}

# The key as HTTP Basic credentials: user = key id, password = key text
# (which names the repository: issue --repo).
t_subscription_repository_gets_the_key() {
	setup
	start_fault --cert "$FIXT/srv.pem" --key "$FIXT/srv.key" --auth "@$T/auth"
	wda --json issue --key "$T/k/license/lic.key" --customer 7 --entitlements drivers \
		--expires 2099-01-01 --repo "$URL/a/"
	assert_rc 0
	id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["key_id"])' "$T/out")
	key=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["key"])' "$T/out")
	case "$key" in *"+$URL/a/") ;; *) fail "the key does not name its repository: $key" ;; esac
	printf '%s:%s\n' "$id" "$key" >"$T/auth"
	w repo add sub "http://127.0.0.1:1/" --subscription
	assert_rc 2
	assert_err "must use https://"
	w repo add sub "$URL/a/" --subscription
	assert_rc 0
	w --cacert "$FIXT/ca.pem" update
	assert_rc 4
	assert_err "activate a subscription key first"
	w activate "$key"
	assert_rc 0
	w --cacert "$FIXT/ca.pem" update
	assert_rc 0
	grep -q "GET /a/INDEX range=- auth=yes" "$T/log" || fail "no credentials sent"
	w --cacert "$FIXT/ca.pem" install testpkg
	assert_rc 0
	w --yes remove testpkg
	rm -rf "$T/v/var/cache/warpdrv/packages"
	before=$(snapshot "$T/v" var/cache/warpdrv/packages)
	for code in 401 403; do
		echo "* $code" >"$T/faults"
		w --cacert "$FIXT/ca.pem" update
		assert_rc 4
		assert_err "HTTP $code: the repository refused the subscription key"
		w --cacert "$FIXT/ca.pem" install testpkg
		assert_rc 4
		[ "$(snapshot "$T/v" var/cache/warpdrv/packages)" = "$before" ] || fail "$code changed the volume"
	done
}

t_repo_commands_refuse_bad_input() {
	setup
	w repo add "Bad Name" http://127.0.0.1:1/
	assert_rc 2
	assert_err "a name is 1 to 32"
	w repo add x gopher://127.0.0.1/
	assert_rc 2
	w repo remove nothere
	assert_rc 1
	assert_err "no repository named 'nothere'"
	[ ! -e "$T/v/var" ] || fail "a refused command wrote state"
	w --connect-timeout 0 update
	assert_rc 2
	w repo add one "$T/www/a"
	assert_rc 0
	w repo add one "$T/www/b"
	assert_rc 2
	assert_err "exists already"
	w -n repo remove one
	w --json repo list
	assert_json '[r["name"] for r in d["repositories"]] == ["one"] and d["repositories"][0]["url"].startswith("file:///")'
	w repo remove one
	assert_rc 0
	w --json repo list
	assert_json 'd["repositories"] == []'
}

# nginx as any vendor would run it: a static folder, an unprivileged
# foreground process on a free loopback port.
t_nginx_serves_a_repository_and_a_mirror() {
	setup
	start_nginx
	port=$PORT
	w repo add main "http://127.0.0.1:$port/missing/" --mirror "http://127.0.0.1:$port/b/"
	w -v update
	assert_rc 0
	assert_err "http://127.0.0.1:$port/missing/INDEX: HTTP 404"
	w install testpkg
	assert_rc 0
	assert_same_file "$FIXT/recipe/TEST.OS2" "$T/v/IBMCOM/MACS/TEST.OS2"
	grep -q "GET /b/$PKG" "$T/nginx/logs/access.log" || fail "nginx did not serve the package"
	# nginx's ETag makes an unchanged update a 304: the catalog is not rewritten
	mtime=$(stat -c %Y.%N "$T/v/var/cache/warpdrv/catalog.db")
	w update
	assert_rc 0
	assert_out "main: up to date"
	grep -q 'GET /b/INDEX HTTP/1.1" 304 ' "$T/nginx/logs/access.log" ||
		fail "nginx did not answer 304: $(cat "$T/nginx/logs/access.log")"
	[ "$(stat -c %Y.%N "$T/v/var/cache/warpdrv/catalog.db")" = "$mtime" ] || fail "catalog.db was rewritten"
}

# The bar is drawn on a terminal only: under a pseudo-terminal, not in a pipe.
t_progress_bar_on_a_terminal_only() {
	setup
	cp -R "$FIXT/srv2" "$T/www/c"
	start_fault
	w repo add main "$URL/c/"
	w update
	echo "/c/tinypkg-1.0.wdp slow" >"$T/faults"
	python3 - "$WD" --root "$T/v" --keys "$T/k" install tinypkg >"$T/pty" <<'PY'
import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
out = b""
while True:
    try:
        chunk = os.read(fd, 65536)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
os.waitpid(pid, 0)
sys.stdout.write(out.decode("utf-8", "replace"))
PY
	grep -q "tinypkg-1.0.wdp  *\[#*\.*\]  [0-9.]* KiB/[0-9.]* KiB  [0-9.]* KiB/s  " "$T/pty" ||
		fail "no bar: $(cat -v "$T/pty")"
	grep -q "0:0[0-9] left" "$T/pty" || fail "no time left: $(cat -v "$T/pty")"
	grep -q "overall: 0 done, [0-9.]* KiB" "$T/pty" || fail "no overall line: $(cat -v "$T/pty")"
	grep -q "Installed tinypkg 1.0" "$T/pty" || fail "not installed: $(cat -v "$T/pty")"
	w --yes remove tinypkg
	rm -rf "$T/v/var/cache/warpdrv/packages"
	w install tinypkg
	assert_rc 0
	! grep -q $'\033' "$T/out" || fail "escape codes in a pipe"
	assert_no_out "KiB/s"
}

# A server dripping 2 bytes a second passes any low-speed limit of 1 byte/s;
# the total deadline ends the transfer: exit 1, a message naming the option,
# the volume and the stored catalog as they were.
t_update_gives_up_at_the_deadline() {
	setup
	start_fault
	w repo add main "$URL/a/"
	w update
	assert_rc 0
	"$WDA" -q index "$T/www/a" --key "$T/k/repo/test.key" --serial 6 >/dev/null
	sum=$(catalog_sum)
	mtime=$(stat -c %Y.%N "$T/v/var/cache/warpdrv/catalog.db")
	before=$(snapshot "$T/v")
	echo "/a/INDEX drip" >"$T/faults"
	start=$(date +%s)
	wd --root "$T/v" --keys "$T/k" --speed-limit 1 --speed-time 30 --max-time 3 update
	took=$(($(date +%s) - start))
	assert_rc 1
	assert_err "repository main: $URL/a/INDEX: not done within 3 s (--max-time), abandoned after"
	assert_err "(the previous catalog of each failed repository stays in use)"
	# well under the 30 s the speed limit alone would take; the margin is
	# for a machine busy with the other tests
	[ "$took" -le 15 ] || fail "update took $took s with --max-time 3"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the volume changed"
	[ "$(catalog_sum)" = "$sum" ] || fail "the stored catalog changed"
	[ "$(stat -c %Y.%N "$T/v/var/cache/warpdrv/catalog.db")" = "$mtime" ] || fail "catalog.db was rewritten"
	w --max-time 0 update
	assert_rc 2
	assert_err "--max-time 0: expected a whole number"
	"$WD" --help >"$T/out"
	grep -q -- "--max-time S .*(default 600)" "$T/out" || fail "the default is not in --help"
}

# A package body shorter than the index says is an integrity failure (3), and
# the partial file is not kept to be resumed for ever.
t_a_short_package_body_is_exit_3_and_not_kept() {
	setup
	start_fault
	w repo add main "$URL/a/"
	w update
	assert_rc 0
	before=$(snapshot "$T/v" var/cache/warpdrv/packages)
	part="$T/v/var/cache/warpdrv/packages/$PKG.part"
	echo "/a/$PKG short" >"$T/faults"
	for round in 1 2; do
		w install testpkg
		assert_rc 3
		assert_err "$URL/a/$PKG: the server's file ends after $((PKGSIZE / 2)) bytes; the index says $PKGSIZE"
		[ ! -e "$part" ] || fail "round $round: the short body was kept in $part"
		[ "$(snapshot "$T/v" var/cache/warpdrv/packages)" = "$before" ] || fail "round $round: the volume changed"
	done
	# a partial file left by a dropped connection, then the server's copy
	# shrinks to it: one resume (answered 416), one fresh try, then discarded
	echo "/a/$PKG drop" >"$T/faults"
	w install testpkg
	assert_rc 1
	[ -s "$part" ] || fail "a dropped download kept nothing to resume"
	echo "/a/$PKG short" >"$T/faults"
	: >"$T/log"
	w install testpkg
	assert_rc 3
	assert_err "the index says $PKGSIZE"
	[ ! -e "$part" ] || fail "the partial file was kept after a failed resume"
	n=$(grep -c "^GET /a/$PKG " "$T/log")
	[ "$n" -le 3 ] || fail "the package was asked for $n times: $(cat "$T/log")"
	[ "$(snapshot "$T/v" var/cache/warpdrv/packages)" = "$before" ] || fail "the volume changed"
	: >"$T/faults"
	w install testpkg
	assert_rc 0
	assert_same_file "$FIXT/recipe/TEST.OS2" "$T/v/IBMCOM/MACS/TEST.OS2"
}

# One rule for package names in the manifest and the index: at most 32
# bytes, so NAME-VERSION.wdp and its temporary names stay file names. A
# 255-byte name is refused where it is read (exit 3), not later on disk.
t_a_255_byte_package_name_is_refused_at_validation() {
	setup
	long=$(printf 'a%.0s' $(seq 255))
	mkdir -p "$T/recipe"
	sed "s/^name testpkg/name $long/" "$FIXT/recipe/MANIFEST" >"$T/recipe/MANIFEST"
	cp "$FIXT/recipe/TEST.OS2" "$T/recipe/"
	mkdir -p "$T/out.d"
	wda pack "$T/recipe" --key "$T/k/repo/test.key" --out "$T/out.d/"
	assert_rc 3
	assert_err "line 2: name: lowercase letters, digits, '.', '+', '-', starting with a letter or digit; at most 32 bytes"
	[ -z "$(ls "$T/out.d")" ] || fail "pack wrote $(ls "$T/out.d")"
	# the same name in a signed index
	start_fault
	w repo add main "$URL/a/"
	w update
	assert_rc 0
	sum=$(catalog_sum)
	before=$(snapshot "$T/v" var/cache/warpdrv/packages)
	python3 - "$T/www/a/INDEX" "$long" <<'PY'
import sys
path, name = sys.argv[1:3]
text = open(path, "rb").read().replace(b"package testpkg ", b"package " + name.encode() + b" ", 1)
text = text.replace(b"\nserial 5\n", b"\nserial 6\n", 1)
open(path, "wb").write(text)
PY
	resign "$T/www/a/INDEX" "$T/k/repo/test.key"
	w update
	assert_rc 3
	assert_err "$URL/a/INDEX line 5: package: malformed name (lowercase letters, digits, '.', '+', '-', starting with a letter or digit; at most 32 bytes)"
	[ "$(catalog_sum)" = "$sum" ] || fail "the stored catalog changed"
	[ "$(snapshot "$T/v" var/cache/warpdrv/packages)" = "$before" ] || fail "the volume changed"
	wd --root "$T/v" --keys "$T/k" --repo "$T/www/a" list
	assert_rc 3
	assert_err "malformed name"
}

# The bundled repository's trust is the program's own: an offline guest keeps
# installing from it two years after the build, while a remote index of the
# same age is refused as expired.
t_bundled_repository_never_expires() {
	setup
	cp -R "$FIX/volumes/ecs21-e1000" "$T/g"
	exp=$(awk '$1 == "expires" { print $2 }' "$WARPDRV_BUILD/repo/INDEX")
	later=$(date -u -d "$exp + 1 year" +%F)
	export WARPDRV_NOW=$later
	before=$(snapshot "$T/g")
	wd --root "$T/g" list
	assert_rc 0
	assert_out pcntnd
	[ "$(snapshot "$T/g")" = "$before" ] || fail "list changed the volume"
	wd --root "$T/g" -y install pcntnd
	assert_rc 0
	assert_out "Installed pcntnd"
	wd --root "$T/g" --json detect --pci "vbox:$FIX/pci/os2-adapters.vbox"
	assert_rc 0
	assert_json "[x['package'] for x in d['devices']][:2] == ['e1000', 'pcntnd']"
	# a remote repository's index keeps its expiry, as --repo and as stored
	wd --root "$T/g" --keys "$T/k" --repo "$T/www/a" list
	assert_rc 3
	assert_err "INDEX: expired on"
	unset WARPDRV_NOW
	start_fault
	w repo add main "$URL/a/"
	w update
	assert_rc 0
	WARPDRV_NOW=$later w update
	assert_rc 3
	assert_err "repository main: $URL/a/INDEX: expired on"
}

# A remote index with a higher serial carries revocations that apply to the
# bundled packages too: a revoked key no longer installs acpi-psd from the
# bundled repository, with nothing changed on the volume.
t_remote_revocations_apply_to_bundled_packages() {
	setup
	cp -R "$FIX/volumes/ecs21-e1000" "$T/g"
	wda --json issue --key "$WARPDRV_BUILD/keys/license/dev.key" --customer 9 \
		--entitlements drivers,acpi --expires 2099-01-01
	assert_rc 0
	id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["key_id"])' "$T/out")
	key=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["key"])' "$T/out")
	g() { wd --root "$T/g" --keys "$T/k" $NET "$@"; }
	g activate "$key"
	assert_rc 0
	g -y install acpi-psd
	assert_rc 0
	g -y remove acpi-psd
	assert_rc 0
	"$WDA" -q index "$T/www/a" --key "$T/k/repo/test.key" --serial 6 --revoke "$id" >/dev/null
	start_fault
	g repo add main "$URL/a/"
	g update
	assert_rc 0
	assert_out "main: updated, serial 6, 1 packages, 1 revoked keys"
	before=$(snapshot "$T/g")
	g -y install acpi-psd
	assert_rc 4
	assert_err "acpi-psd 3.23.16"
	assert_err "revoked"
	[ "$(snapshot "$T/g")" = "$before" ] || fail "a refused install changed the volume"
	# the revocation sticks when the remote repository is gone again
	g repo remove main
	assert_rc 0
	before=$(snapshot "$T/g")
	g -y install acpi-psd
	assert_rc 4
	assert_err "revoked"
	[ "$(snapshot "$T/g")" = "$before" ] || fail "a refused install changed the volume"
}

# update when nothing changed: a conditional request (If-None-Match) that the
# server answers 304; nothing is parsed or written: catalog.db keeps its
# bytes and mtime and the volume its every byte.
t_unchanged_update_is_a_304_that_rewrites_nothing() {
	setup
	start_fault
	w repo add main "$URL/a/" --mirror "$URL/b/"
	w update
	assert_rc 0
	assert_out "main: updated, serial 5"
	db="$T/v/var/cache/warpdrv/catalog.db"
	grep -q "^$URL/a/INDEX	\"" "$T/v/var/cache/warpdrv/catalog.validators" ||
		fail "no validators kept: $(cat "$T/v/var/cache/warpdrv/catalog.validators")"
	sum=$(catalog_sum)
	mtime=$(stat -c %Y.%N "$db")
	before=$(snapshot "$T/v")
	: >"$T/log"
	sleep 1.1 # a rewrite would show in the mtime
	w update
	assert_rc 0
	assert_out "main: up to date, serial 5, 1 packages"
	[ "$(grep -c "^GET /a/INDEX " "$T/log")" -eq 1 ] || fail "requests: $(cat "$T/log")"
	[ "$(grep -c "^304 /a/INDEX$" "$T/log")" -eq 1 ] || fail "no 304: $(cat "$T/log")"
	! grep -q "/b/" "$T/log" || fail "the mirror was asked: $(cat "$T/log")"
	[ "$(catalog_sum)" = "$sum" ] || fail "catalog.db changed"
	[ "$(stat -c %Y.%N "$db")" = "$mtime" ] || fail "catalog.db was rewritten"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the volume changed"
	w --json update
	assert_json 'd["repositories"][0]["status"] == "current" and d["repositories"][0]["serial"] == 5'
	w install testpkg
	assert_rc 0
	w --yes remove testpkg
	# a new index is fetched whole, then it is the one held
	"$WDA" -q index "$T/www/a" --key "$T/k/repo/test.key" --serial 6 >/dev/null
	: >"$T/log"
	w update
	assert_rc 0
	assert_out "main: updated, serial 6"
	! grep -q "^304" "$T/log" || fail "a changed index was answered 304"
	w update
	assert_out "main: up to date, serial 6"
	# without a stored catalog nothing is asked conditionally
	rm "$db"
	: >"$T/log"
	w update
	assert_rc 0
	assert_out "main: updated, serial 6"
	! grep -q "^304" "$T/log" || fail "a 304 with no catalog held: $(cat "$T/log")"
	[ -s "$db" ] || fail "no catalog written"
	# a held index past its expiry is not asked about: fetched whole, and the
	# server's copy, as old, is refused
	: >"$T/log"
	WARPDRV_NOW=2099-01-01 w update
	assert_rc 3
	assert_err "expired on"
	! grep -q "^304" "$T/log" || fail "an expired index was kept by a 304"
}

run_tests
