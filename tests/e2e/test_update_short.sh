#!/usr/bin/env bash
# The short ways of the network path: an unchanged update answered 304 reads
# what it reports from the note beside the validators, not the stored index
# (catalog/fetch_stored.h), and reads the index in full when the stored
# catalog is not the file the note describes; a mirror that drips bytes is
# left after the low-speed time (--speed-time, default 30 s; 2 s here) and
# the next one is tried. Servers listen on 127.0.0.1 only.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pkg_lib.sh"

FIXT="$TESTTMP/fixture"
mkdir -p "$FIXT/k/repo" "$FIXT/srv" "$FIXT/recipe"
"$WDA" keygen --out "$FIXT/k/repo/test" >/dev/null
cat >"$FIXT/recipe/MANIFEST" <<'M'
format 1
name testpkg
version 1.0
released 2024-01-01
summary A package for the update tests
kind psd
file TEST.OS2 \IBMCOM\MACS\TEST.OS2
M
head -c 20000 /dev/urandom >"$FIXT/recipe/TEST.OS2"
"$WDA" -q pack "$FIXT/recipe" --key "$FIXT/k/repo/test.key" --out "$FIXT/srv/" >/dev/null
"$WDA" -q index "$FIXT/srv" --key "$FIXT/k/repo/test.key" --serial 5 >/dev/null
PKG=testpkg-1.0.wdp
# a second repository with a package of its own
mkdir -p "$FIXT/tiny" "$FIXT/srv2"
sed 's/^name testpkg/name tinypkg/; s/TEST.OS2/TINY.OS2/g' "$FIXT/recipe/MANIFEST" >"$FIXT/tiny/MANIFEST"
head -c 8000 /dev/urandom >"$FIXT/tiny/TINY.OS2"
"$WDA" -q pack "$FIXT/tiny" --key "$FIXT/k/repo/test.key" --out "$FIXT/srv2/" >/dev/null
"$WDA" -q index "$FIXT/srv2" --key "$FIXT/k/repo/test.key" --serial 1 >/dev/null

setup() {
	make_volume "$T/v"
	cp -R "$FIXT/k" "$T/k"
	mkdir -p "$T/www"
	cp -R "$FIXT/srv" "$T/www/a"
	cp -R "$FIXT/srv" "$T/www/b"
	start_fault
}

w() { wd --root "$T/v" --keys "$T/k" "$@"; }
VAL() { cat "$T/v/var/cache/warpdrv/catalog.validators"; }

t_an_unchanged_update_reports_from_the_note() {
	setup
	w repo add main "$URL/a/"
	w update
	assert_rc 0
	assert_out "main: updated, serial 5, 1 package"
	VAL | grep -q "^=stored main $URL/a/	" || fail "no note kept: $(VAL)"
	before=$(snapshot "$T/v")
	: >"$T/log"
	w update
	assert_rc 0
	assert_out "main: up to date, serial 5, 1 package, 0 revoked keys"
	[ "$(grep -c "^304 /a/INDEX$" "$T/log")" -eq 1 ] || fail "no 304: $(cat "$T/log")"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the volume changed"
	# a changed index: fetched whole, and the note follows it
	"$WDA" -q index "$T/www/a" --key "$T/k/repo/test.key" --serial 6 >/dev/null
	w update
	assert_out "main: updated, serial 6"
	w update
	assert_out "main: up to date, serial 6, 1 package"
}

# Two repositories, one unchanged and one changed: the catalog is written
# again, so the unchanged one's index is read in full for it and kept whole;
# both are then usable and both notes current.
t_an_unchanged_repository_beside_a_changed_one_is_kept_whole() {
	setup
	cp -R "$FIXT/srv2" "$T/www/c"
	w repo add main "$URL/a/"
	w repo add tiny "$URL/c/"
	w update
	assert_rc 0
	assert_out "tiny: updated, serial 1, 1 package"
	"$WDA" -q index "$T/www/a" --key "$T/k/repo/test.key" --serial 6 >/dev/null
	: >"$T/log"
	w update
	assert_rc 0
	assert_out "main: updated, serial 6"
	assert_out "tiny: up to date, serial 1, 1 package"
	grep -q "^304 /c/INDEX$" "$T/log" || fail "tiny was not asked conditionally: $(cat "$T/log")"
	w --json list
	assert_json 'sorted(p["name"] for p in d["packages"] if p["name"] in ("testpkg", "tinypkg")) == ["testpkg", "tinypkg"]'
	w install tinypkg
	assert_rc 0
	assert_same_file "$FIXT/tiny/TINY.OS2" "$T/v/IBMCOM/MACS/TINY.OS2"
	: >"$T/log"
	w update
	assert_rc 0
	assert_out "main: up to date, serial 6"
	assert_out "tiny: up to date, serial 1"
	[ "$(grep -c "^304 " "$T/log")" -eq 2 ] || fail "not two 304s: $(cat "$T/log")"
}

# The stored catalog altered after the note was written (its index no longer
# the signed one): the note does not describe it, so the index is read and
# verified in full, refused with the usual warning, and fetched afresh.
t_a_stored_catalog_changed_under_the_note_is_read_in_full() {
	setup
	w repo add main "$URL/a/"
	w update
	assert_rc 0
	python3 - "$T/v/var/cache/warpdrv/catalog.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
(text,) = db.execute("SELECT signed FROM repo").fetchone()
db.execute("UPDATE repo SET signed = ?", (text.replace(b"serial 5", b"serial 9"),))
db.commit()
PY
	: >"$T/log"
	w update
	assert_rc 0
	assert_err "the stored index of repository main is not one the trusted keys signed"
	assert_out "main: updated, serial 5"
	! grep -q "^304" "$T/log" || fail "the altered catalog was kept by a 304: $(cat "$T/log")"
	w update
	assert_rc 0
	assert_out "main: up to date, serial 5"
	! grep -q "trusted keys" "$T/err" || fail "warned again: $ERR"
}

# A note that does not parse, or names a key no longer trusted, is not
# believed: the report comes from the stored index itself. (Serial 77 is the
# note's lie each time.)
t_a_bad_note_is_not_used() {
	setup
	w repo add main "$URL/a/"
	w update
	assert_rc 0
	f="$T/v/var/cache/warpdrv/catalog.validators"
	cp "$f" "$T/good"
	lie() { sed 's/^\(=stored [^\t]*\t[^ ]*\) [0-9]* /\1 77 /' "$T/good"; }
	# the lie alone is believed: the catalog is still the file noted
	lie >"$f"
	w update
	assert_rc 0
	assert_out "main: up to date, serial 77"
	lie | sed 's/$/ extra/' >"$f"
	w update
	assert_rc 0
	assert_out "main: up to date, serial 5, 1 package"
	lie | sed 's/ [0-9a-f]\{64\}$/ '"$(printf '0%.0s' $(seq 64))"'/' >"$f"
	w update
	assert_rc 0
	assert_out "main: up to date, serial 5, 1 package"
	lie | sed 's/^\(=stored [^\t]*\t\)[^ ]*/\1 1:2:3:4.0:5.0/' >"$f"
	w update
	assert_rc 0
	assert_out "main: up to date, serial 5, 1 package"
}

# dnf's rule: under 1000 bytes/s for the low-speed time, the mirror is left
# and the next tried. The time is --speed-time (2 s here); the default, 30 s,
# is in --help.
t_a_dripping_mirror_is_left_for_the_next() {
	setup
	w repo add main "$URL/a/" --mirror "$URL/b/"
	echo "/a/INDEX drip" >"$T/faults"
	start=$(date +%s)
	w -v --speed-time 2 update
	took=$(($(date +%s) - start))
	assert_rc 0
	assert_out "main: updated, serial 5, 1 package, 0 revoked keys (from $URL/b/)"
	assert_err "$URL/a/INDEX: stalled: under 1000 bytes/s for 2 s (--speed-limit, --speed-time)"
	# 2 s and the start; the margin is for a machine busy with other tests
	[ "$took" -le 8 ] || fail "update took $took s with --speed-time 2"
	echo "/a/$PKG drip" >"$T/faults"
	start=$(date +%s)
	w -v --speed-time 2 install testpkg
	took=$(($(date +%s) - start))
	assert_rc 0
	assert_err "$URL/a/$PKG: stalled: under 1000 bytes/s for 2 s"
	[ "$took" -le 8 ] || fail "install took $took s with --speed-time 2"
	assert_same_file "$FIXT/recipe/TEST.OS2" "$T/v/IBMCOM/MACS/TEST.OS2"
	"$WD" --help >"$T/out"
	grep -q -- "--speed-time S .*(default 1000 bytes/s for 30 s)" "$T/out" ||
		fail "the default is not in --help: $(grep -- --speed "$T/out")"
}

run_tests
