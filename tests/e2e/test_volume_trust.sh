#!/usr/bin/env bash
# Nothing on the volume is trusted unless a key the program trusts signed it:
# the stored catalog (var/cache/warpdrv/catalog.db) is verified again on
# every load, key folders on the volume are ignored (and named), and verify
# reads the installed rows and files under the volume's shared lock, so a
# removal under way is never reported as damage. Every refusal is checked
# for its exit code, its message, an unchanged volume and an unchanged
# sentinel folder beside it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pkg_lib.sh"

NET="--connect-timeout 2 --speed-limit 1000 --speed-time 1"

# Made once: a repository key and a served repository with testpkg 1.0.
FIXT="$TESTTMP/fixture"
mkdir -p "$FIXT/k/repo" "$FIXT/srv" "$FIXT/recipe"
"$WDA" keygen --out "$FIXT/k/repo/test" >/dev/null
cat >"$FIXT/recipe/MANIFEST" <<'M'
format 1
name testpkg
version 1.0
released 2024-01-01
summary A package for the volume trust tests
kind psd
file TEST.OS2 \IBMCOM\MACS\TEST.OS2
M
printf 'test driver\n' >"$FIXT/recipe/TEST.OS2"
"$WDA" -q pack "$FIXT/recipe" --key "$FIXT/k/repo/test.key" --out "$FIXT/srv/" >/dev/null
"$WDA" -q index "$FIXT/srv" --key "$FIXT/k/repo/test.key" --serial 5 >/dev/null
PKG=testpkg-1.0.wdp

# $T/v with repository main (served from $T/www/a) updated, $T/k its key,
# $T/sentinel a folder beside the volume, and at $T/www/sentinel/planted
# bytes a crafted row could name (curl resolves a/../../sentinel to it).
remote_volume() {
	make_volume "$T/v"
	cp -R "$FIXT/k" "$T/k"
	mkdir -p "$T/www/sentinel" "$T/sentinel"
	cp -R "$FIXT/srv" "$T/www/a"
	printf 'bytes from the server\n' >"$T/www/sentinel/planted"
	printf 'the sentinel\n' >"$T/sentinel/keep"
	start_fault
	w repo add main "$URL/a/"
	assert_rc 0
	w update
	assert_rc 0
	CAT="$T/v/var/cache/warpdrv/catalog.db"
	cp "$CAT" "$T/catalog.good"
}

w() { wd --root "$T/v" --keys "$T/k" $NET "$@"; }

# The stored index of repository main, out to FILE or in from FILE.
stored_index() { # get|put FILE
	if [ "$1" = get ]; then
		sqlite3 "$CAT" "SELECT writefile('$2', signed) FROM repo WHERE name = 'main'" >/dev/null
	else
		sqlite3 "$CAT" "UPDATE repo SET signed = readfile('$2') WHERE name = 'main'"
	fi
}

# Replaces FROM by TO in testpkg's line of the stored index (the good one);
# with RESIGN=1 the edited index is signed again by the trusted test key.
craft() { # FROM TO
	cp "$T/catalog.good" "$CAT"
	stored_index get "$T/idx.old"
	local l hit=0
	while IFS= read -r l; do
		if [[ $l == "package testpkg "* && $l == *"$1"* ]]; then
			l=${l/"$1"/"$2"}
			hit=1
		fi
		printf '%s\n' "$l"
	done <"$T/idx.old" >"$T/idx"
	[ $hit = 1 ] || fail "no '$1' in the package line"
	[ "${RESIGN:-0}" = 0 ] || resign "$T/idx" "$T/k/repo/test.key"
	stored_index put "$T/idx"
}

# install testpkg and upgrade are refused with exit 3 and MESSAGE, writing
# nothing on the volume and nothing beside it.
refused() { # MESSAGE
	local vol side
	vol=$(snapshot "$T/v")
	side=$(snapshot "$T/sentinel")
	w install testpkg
	assert_rc 3
	assert_err "$1"
	assert_err "var/cache/warpdrv/catalog.db: the stored index of repository main"
	assert_err "run 'warpdrv update'"
	w --yes upgrade
	assert_rc 3
	assert_err "$1"
	[ "$(snapshot "$T/v")" = "$vol" ] || fail "the volume changed"
	[ "$(snapshot "$T/sentinel")" = "$side" ] || fail "the folder beside the volume changed"
	[ ! -e "$T/sentinel/planted" ] || fail "a file was created beside the volume"
}

t_stored_catalog_altered_is_refused_and_update_repairs_it() {
	remote_volume
	local sha size
	sha=$(sha256sum "$T/www/sentinel/planted" | cut -d' ' -f1)
	size=$(stat -c %s "$T/www/sentinel/planted")
	craft " $PKG " " ../../../../sentinel/planted "
	refused "is not one the trusted keys signed"
	assert_err "bad signature"
	craft " $PKG " " $T/sentinel/planted "
	refused "is not one the trusted keys signed"
	craft "testpkg 1.0 " "testpkg 1.0/../x "
	refused "is not one the trusted keys signed"
	# the bytes of a row changed: the served file's size and SHA-256
	craft " $(stat -c %s "$FIXT/srv/$PKG") $(sha256sum "$FIXT/srv/$PKG" | cut -d' ' -f1) " \
		" $size $sha "
	refused "is not one the trusted keys signed"
	# a stored blob that is no index at all
	cp "$T/catalog.good" "$CAT"
	printf 'junk' >"$T/idx"
	stored_index put "$T/idx"
	refused "is not one the trusted keys signed"
	# repo list says so, update fetches it afresh, and the install works again
	w repo list
	assert_rc 0
	assert_out "catalog: does not verify, not used ('warpdrv update')"
	w update
	assert_rc 0
	assert_err "is not one the trusted keys signed"
	assert_out "main: updated, serial 5, 1 package"
	w install testpkg
	assert_rc 0
	assert_same_file "$FIXT/recipe/TEST.OS2" "$T/v/IBMCOM/MACS/TEST.OS2"
	[ ! -e "$T/sentinel/planted" ] || fail "a file was created beside the volume"
}

# Signed by the trusted key, the index is still parsed as a fetched one: a
# package file that is not a plain name is refused by the same rule.
t_stored_catalog_signed_but_unsafe_is_refused() {
	remote_volume
	RESIGN=1 craft " $PKG " " ../../../../sentinel/planted "
	refused "file must be a plain file name in the repository"
	RESIGN=1 craft " $PKG " " $T/sentinel/planted "
	refused "file must be a plain file name in the repository"
	RESIGN=1 craft "testpkg 1.0 " "testpkg 1.0/x "
	refused "malformed version"
}

# The version 2 catalog main wrote, with a row naming a file outside the
# root with the right size and SHA-256 of what the server sends there: it is
# another version's, ignored with a note, and its rows are never read.
t_old_catalog_with_a_traversal_row_is_ignored() {
	remote_volume
	rm "$CAT"
	python3 - "$CAT" "$URL/a/" "$(stat -c %s "$T/www/sentinel/planted")" \
		"$(sha256sum "$T/www/sentinel/planted" | cut -d' ' -f1)" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.executescript("""
CREATE TABLE repo (name TEXT PRIMARY KEY, url TEXT NOT NULL, source TEXT NOT NULL,
 serial INTEGER NOT NULL, issued INTEGER NOT NULL, expires INTEGER NOT NULL, signer TEXT NOT NULL);
CREATE TABLE package (repo TEXT NOT NULL, name TEXT NOT NULL, version TEXT NOT NULL,
 released INTEGER NOT NULL, kind TEXT NOT NULL, entitlement TEXT, file TEXT NOT NULL,
 size INTEGER NOT NULL, sha256 TEXT NOT NULL, summary TEXT NOT NULL, choice TEXT);
CREATE TABLE revoked (repo TEXT NOT NULL, key_id TEXT NOT NULL);
PRAGMA user_version = 2;""")
db.execute("INSERT INTO repo VALUES ('main', ?, ?, 5, 19723, 99999, 'x')", (sys.argv[2], sys.argv[2]))
db.execute("INSERT INTO package VALUES ('main', 'planted', '1.0', 19723, 'psd', NULL,"
           " '../../../../sentinel/planted', ?, ?, 'planted', NULL)", (int(sys.argv[3]), sys.argv[4]))
db.commit()
PY
	local vol side
	vol=$(snapshot "$T/v")
	side=$(snapshot "$T/sentinel")
	wd --root "$T/v" $NET install planted
	assert_rc 1
	assert_err "$CAT: a catalog of another warpdrv version: ignored; run 'warpdrv update'"
	assert_err "no package named 'planted'"
	[ "$(snapshot "$T/v")" = "$vol" ] || fail "the volume changed"
	[ "$(snapshot "$T/sentinel")" = "$side" ] || fail "the folder beside the volume changed"
	[ ! -e "$T/sentinel/planted" ] || fail "a file was created beside the volume"
	w update
	assert_rc 0
	assert_err "a catalog of another warpdrv version: ignored; every index is fetched again"
	w --json repo list
	assert_json 'd["repositories"][0]["serial"] == 5 and d["repositories"][0]["package_count"] == 1'
}

# A licence key planted on the volume does not make a forged subscription
# valid; the note names the folder.
t_planted_licence_key_is_ignored() {
	make_volume "$T/v"
	mkdir -p "$T/forge" "$T/v/var/lib/warpdrv/keys/license"
	wda keygen --out "$T/forge/evil"
	assert_rc 0
	cp "$T/forge/evil.pub" "$T/v/var/lib/warpdrv/keys/license/"
	wda issue --key "$T/forge/evil.key" --customer 7 --entitlements drivers,acpi \
		--issued 2026-01-01 --expires 2099-12-31
	assert_rc 0
	local key=$OUT vol
	vol=$(snapshot "$T/v")
	wd --root "$T/v" activate "$key"
	assert_rc 4
	assert_err "bad signature"
	assert_err "$T/v/var/lib/warpdrv/keys: keys found on the volume are ignored"
	[ "$(snapshot "$T/v")" = "$vol" ] || fail "the volume changed"
	[ ! -e "$T/v/var/lib/warpdrv/warpdrv.db" ] || fail "the key was stored"
}

# A repository key planted on the volume does not make its package install.
t_planted_repo_key_is_ignored() {
	make_volume "$T/v"
	mkdir -p "$T/forge" "$T/v/var/lib/warpdrv/keys/repo"
	wda keygen --out "$T/forge/evil"
	assert_rc 0
	cp "$T/forge/evil.pub" "$T/v/var/lib/warpdrv/keys/repo/"
	make_recipe
	wda pack "$T/recipe" --key "$T/forge/evil.key" --out "$T/evil.wdp"
	assert_rc 0
	local vol
	vol=$(snapshot "$T/v")
	wd --root "$T/v" install "$T/evil.wdp"
	assert_rc 3
	assert_err "signed by unknown key"
	assert_err "$T/v/var/lib/warpdrv/keys: keys found on the volume are ignored"
	[ "$(snapshot "$T/v")" = "$vol" ] || fail "the volume changed"
	# the same key given with --keys is trusted for that run, and not kept
	mkdir -p "$T/given/repo"
	cp "$T/forge/evil.pub" "$T/given/repo/"
	wd --root "$T/v" --keys "$T/given" install "$T/evil.wdp"
	assert_rc 0
	[ "$(ls "$T/v/var/lib/warpdrv/keys/repo")" = evil.pub ] || fail "the key folder changed"
}

# Activating a subscription puts no key on the volume (the demo and the
# tests rely on the build's keys, never on the volume's).
t_activation_stores_no_key() {
	make_volume "$T/v"
	wda issue --key "$WARPDRV_BUILD/keys/license/dev.key" --customer 7 \
		--entitlements drivers,acpi --issued 2026-01-01 --expires 2099-12-31
	assert_rc 0
	wd --root "$T/v" activate "$OUT"
	assert_rc 0
	assert_no_out "ignored"
	[ ! -e "$T/v/var/lib/warpdrv/keys" ] || fail "activation created a key folder on the volume"
	! find "$T/v" -name '*.pub' -o -name '*.key' | grep -q . || fail "a key file is on the volume"
}

# testpkg (it replaces \OS2\KEEP.SYS) installed on $T/v, and its removal
# started in the background as $REMOVER, held before durable step STEP
# (WARPDRV_PAUSE_AT: it waits while $T/pause exists): 1, the lock taken and
# nothing recorded yet; 7, its last, the kept KEEP.SYS back in place and the
# rows not yet gone. Returns once the removal waits there.
remove_under_way() { # STEP
	make_volume "$T/v"
	make_good_package
	wd --root "$T/v" --keys "$T/k" install "$T/good.wdp"
	assert_rc 0
	make_volume "$T/orig"
	rm -f "$T/pause"
	WARPDRV_PAUSE_AT=$1 WARPDRV_PAUSE_FILE="$T/pause" \
		"$WD" --root "$T/v" --keys "$T/k" --yes remove testpkg >"$T/rm.out" 2>"$T/rm.err" &
	REMOVER=$!
	for _ in $(seq 500); do [ -e "$T/pause" ] && break; sleep 0.02; done
	[ -e "$T/pause" ] || fail "the removal did not get to step $1"
	if [ "$1" = 7 ]; then
		cmp -s "$T/v/OS2/KEEP.SYS" "$T/orig/OS2/KEEP.SYS" ||
			fail "KEEP.SYS is not back before the last step"
	fi
}

# verify beside the held removal, with WARPDRV_LOCK_WAIT=WAIT: in the
# background, letting go of the removal once verify has had time to start,
# or (WAIT 0) in the foreground, letting go after it answered. $DONE says
# whether the removal had ended when verify answered.
verify_beside_it() { # WAIT
	if [ "$1" = 0 ]; then
		WARPDRV_LOCK_WAIT=0 wd --root "$T/v" verify
		rm -f "$T/pause"
	else
		(WARPDRV_LOCK_WAIT=$1 wd --root "$T/v" verify; echo "$RC" >"$T/verify.rc") &
		local verifier=$!
		sleep 0.5
		rm -f "$T/pause"
		wait "$verifier"
		RC=$(cat "$T/verify.rc")
		OUT=$(cat "$T/out")
		ERR=$(cat "$T/err")
	fi
	DONE=no
	[ ! -s "$T/rm.out" ] || DONE=yes
	local rc=$RC
	wait "$REMOVER" || fail "the removal failed: $(cat "$T/rm.err")"
	RC=$rc
	! grep -q "differs" "$T/err" || fail "verify reported a difference: $ERR"
}

t_verify_waits_for_a_removal_that_holds_the_lock() {
	remove_under_way 1
	verify_beside_it 30
	assert_rc 0
	[ $DONE = yes ] || fail "verify answered before the removal ended: $OUT"
	assert_out "0 installed files checked; all as installed. Database intact."
}

t_verify_waits_for_a_removal_under_way() {
	remove_under_way 7
	verify_beside_it 30
	assert_rc 0
	[ $DONE = yes ] || fail "verify answered before the removal ended: $OUT"
	assert_out "0 installed files checked; all as installed. Database intact."
	[ "$(installed "$T/v")" = "" ] || fail "testpkg is still installed"
}

t_verify_says_busy_when_it_cannot_wait() {
	remove_under_way 1
	verify_beside_it 0
	assert_rc 1
	assert_err "the volume is busy: process "
	assert_err "--yes remove testpkg) holds" # its command line, from the process table
}

# verify and check on a volume no transaction ever ran on take no lock and
# create nothing.
t_readers_create_no_lock_file() {
	make_volume "$T/v"
	local vol
	vol=$(snapshot "$T/v")
	wd --root "$T/v" verify
	assert_rc 0
	wd --root "$T/v" check
	[ "$(snapshot "$T/v")" = "$vol" ] || fail "the volume changed"
}

run_tests
