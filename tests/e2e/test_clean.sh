#!/usr/bin/env bash
# warpdrv clean: the packages downloaded into the volume's cache
# (var/cache/warpdrv/packages) removed by the root's handle, the bytes freed
# said; --dry-run says what it would free and removes nothing; a link in
# the cache is left and never followed; the volume's lock and a partial
# download under way are respected; list shows the cache's size.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pkg_lib.sh"

FIXT="$TESTTMP/fixture"
mkdir -p "$FIXT/k/repo" "$FIXT/srv" "$FIXT/r"
"$WDA" -q keygen --out "$FIXT/k/repo/test" >/dev/null
cp "$SRC/drivers/e1000/"* "$FIXT/r/"
head -c 40000 /dev/urandom >"$FIXT/r/E1000.OS2"
"$WDA" -q pack "$FIXT/r" --key "$FIXT/k/repo/test.key" --out "$FIXT/srv/" >/dev/null
"$WDA" -q index "$FIXT/srv" --key "$FIXT/k/repo/test.key" --serial 1 >/dev/null
PKG=e1000-4.02.wdp
CACHE=var/cache/warpdrv/packages

# $T/v with e1000 installed from a loopback repository: its package in the
# cache, and a partial download beside it.
setup() {
	make_volume "$T/v"
	cp -R "$FIXT/k" "$T/k"
	mkdir -p "$T/www"
	cp -R "$FIXT/srv" "$T/www/main"
	start_fault
	URL="$URL/main/"
	w repo add main "$URL"
	assert_rc 0
	w update
	assert_rc 0
	w install e1000
	assert_rc 0
	assert_same_file "$FIXT/srv/$PKG" "$T/v/$CACHE/$PKG"
	head -c 1234 /dev/urandom >"$T/v/$CACHE/pcntnd-4.13.wdp.part"
}

w() { wd --root "$T/v" --keys "$T/k" "$@"; }

cache_bytes() { # the bytes of the plain files in the cache folder
	find "$T/v/$CACHE" -maxdepth 1 -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}'
}

# Holds an open file description's write lock on FILE (as a download holds
# its FILE.part) until $T/release exists.
hold_ofd_lock() { # FILE
	python3 - "$1" "$T/release" "$T/held" <<'PY' &
import fcntl, os, struct, sys, time
fd = os.open(sys.argv[1], os.O_RDWR)
fcntl.fcntl(fd, fcntl.F_OFD_SETLK, struct.pack("hhqqi4x", fcntl.F_WRLCK, os.SEEK_SET, 0, 0, 0))
open(sys.argv[3], "w").close()
for _ in range(600):
    if os.path.exists(sys.argv[2]):
        break
    time.sleep(0.05)
PY
	HOLDER=$!
	SERVERS="$SERVERS $HOLDER"
	for _ in $(seq 100); do [ -e "$T/held" ] && break; sleep 0.05; done
	[ -e "$T/held" ] || fail "the lock was not taken"
}

release() {
	touch "$T/release"
	wait "$HOLDER"
	rm -f "$T/release" "$T/held"
}

t_clean_frees_the_bytes_it_says() {
	setup
	want=$(cache_bytes)
	[ "$want" -eq $(( $(stat -c %s "$FIXT/srv/$PKG") + 1234 )) ] || fail "the cache holds $want bytes"
	snap=$(snapshot "$T/v")
	w clean --dry-run
	assert_rc 0
	assert_out "would remove $PKG, $(stat -c %s "$FIXT/srv/$PKG") bytes"
	assert_out "would remove pcntnd-4.13.wdp.part (a partial download), 1234 bytes"
	assert_out "Would remove 2 files from $T/v/$CACHE, freeing $want bytes"
	[ "$(snapshot "$T/v")" = "$snap" ] || fail "clean --dry-run changed the volume"
	w list # stdout is the listing alone: the cache's size with -v, on stderr
	assert_rc 0
	assert_no_out "Download cache"
	[ -z "$ERR" ] || fail "list said more than the listing: $ERR"
	w -v list
	assert_rc 0
	assert_no_out "Download cache"
	assert_err "Download cache: 2 files, $want bytes in $T/v/$CACHE ('warpdrv clean' removes them)."
	w --json list
	assert_json 'd["cache"] == {"file_count": 2, "size": '"$want"'}'
	# the lock file says who holds it: "warpdrv clean"
	rest=$(snapshot "$T/v" var/cache var/lib/warpdrv/lock)
	w clean
	assert_rc 0
	assert_out "Removed 2 files from $T/v/$CACHE: freed $want bytes"
	[ -z "$(ls -A "$T/v/$CACHE")" ] || fail "the cache is not empty: $(ls -A "$T/v/$CACHE")"
	[ "$(snapshot "$T/v" var/cache var/lib/warpdrv/lock)" = "$rest" ] ||
		fail "clean changed more than the cache"
	w verify
	assert_rc 0
	w clean
	assert_rc 0
	assert_out "The download cache is empty ($T/v/$CACHE): nothing to free."
	w --json list
	assert_json 'd["cache"] == {"file_count": 0, "size": 0}'
	# the package downloads again when it is needed
	w --yes remove e1000
	assert_rc 0
	w --json install e1000
	assert_rc 0
	w --json clean
	assert_rc 0
	assert_json 'd["freed_bytes"] == '"$(stat -c %s "$FIXT/srv/$PKG")"' and [f["name"] for f in d["files"]] == ["'"$PKG"'"] and d["left"] == [] and not d["dry_run"]'
}

t_a_link_planted_in_the_cache_is_not_followed() {
	setup
	mkdir -p "$T/host/dir"
	printf 'a host file\n' >"$T/host/host.txt"
	printf 'another\n' >"$T/host/dir/x.wdp"
	ln -s "$T/host/host.txt" "$T/v/$CACHE/evil.wdp"
	ln -s "$T/host/dir" "$T/v/$CACHE/dir.wdp"
	host=$(snapshot "$T/host")
	w clean
	assert_rc 0
	assert_err "$T/v/$CACHE/evil.wdp: a symbolic link: left as it is (warpdrv does not follow it; remove it by hand)"
	assert_err "$T/v/$CACHE/dir.wdp: a symbolic link: left as it is"
	assert_out "Removed 2 files"
	[ "$(snapshot "$T/host")" = "$host" ] || fail "a host file changed"
	[ -L "$T/v/$CACHE/evil.wdp" ] && [ -L "$T/v/$CACHE/dir.wdp" ] || fail "a planted link was removed"
	# the cache folder itself a link to a host folder: refused, nothing removed
	rm -rf "${T:?}/v/$CACHE"
	ln -s "$T/host/dir" "$T/v/$CACHE"
	w clean
	assert_rc 1
	assert_err "$T/v/$CACHE is a symbolic link; warpdrv does not follow links on a volume"
	w clean --dry-run
	assert_rc 1
	[ "$(snapshot "$T/host")" = "$host" ] || fail "a host file changed"
	# a folder on the way a link: the same
	rm "$T/v/$CACHE"
	mv "$T/v/var/cache" "$T/cache-elsewhere"
	ln -s "$T/cache-elsewhere" "$T/v/var/cache"
	w clean
	assert_rc 1
	assert_err "$T/v/var/cache is a symbolic link; warpdrv does not follow links on a volume"
	[ -e "$T/cache-elsewhere/warpdrv/catalog.db" ] || fail "a file behind the link was removed"
}

t_a_busy_volume_and_a_download_under_way_are_left_alone() {
	setup
	# another warpdrv's transaction holds the volume's lock
	python3 - "$T/v/var/lib/warpdrv/lock" "$T/release" "$T/held" <<'PY' &
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR)
os.pwrite(fd, b"warpdrv install e1000\n", 0)
fcntl.lockf(fd, fcntl.LOCK_EX)
open(sys.argv[3], "w").close()
for _ in range(600):
    if os.path.exists(sys.argv[2]):
        break
    time.sleep(0.05)
PY
	HOLDER=$!
	SERVERS="$SERVERS $HOLDER"
	for _ in $(seq 100); do [ -e "$T/held" ] && break; sleep 0.05; done
	snap=$(snapshot "$T/v")
	WARPDRV_LOCK_WAIT=1 w clean
	assert_rc 1
	assert_err "the volume is busy: process "
	assert_err "python3" # the holder from the process table, whatever its lock file says
	release
	[ "$(snapshot "$T/v")" = "$snap" ] || fail "a clean of a busy volume changed it"
	# a partial download being written: left, the rest removed
	hold_ofd_lock "$T/v/$CACHE/pcntnd-4.13.wdp.part"
	w clean --dry-run
	assert_rc 0
	assert_err "pcntnd-4.13.wdp.part: being downloaded by another warpdrv now: left as it is"
	assert_out "Would remove 1 file"
	w clean
	assert_rc 0
	assert_err "pcntnd-4.13.wdp.part: being downloaded by another warpdrv now: left as it is"
	assert_out "Removed 1 file from $T/v/$CACHE: freed $(stat -c %s "$FIXT/srv/$PKG") bytes"
	[ -e "$T/v/$CACHE/pcntnd-4.13.wdp.part" ] || fail "the download under way was removed"
	[ ! -e "$T/v/$CACHE/$PKG" ] || fail "the package was not removed"
	release
}

t_a_download_that_another_holds_is_refused_not_shared() {
	setup
	w --yes remove e1000
	assert_rc 0
	rm "$T/v/$CACHE/$PKG"
	head -c 100 "$FIXT/srv/$PKG" >"$T/v/$CACHE/$PKG.part"
	hold_ofd_lock "$T/v/$CACHE/$PKG.part"
	snap=$(snapshot "$T/v")
	w install e1000
	assert_rc 1
	assert_err "$PKG.part: another warpdrv is downloading it, or cleaning the cache, now; try again when it has finished"
	[ "$(snapshot "$T/v")" = "$snap" ] || fail "the refused download changed the volume"
	release
	w install e1000
	assert_rc 0
	assert_same_file "$FIXT/srv/$PKG" "$T/v/$CACHE/$PKG"
}

t_usage_and_a_volume_with_no_cache() {
	make_volume "$T/v"
	snap=$(snapshot "$T/v")
	wd --root "$T/v" clean now
	assert_rc 2
	assert_err "clean: takes no arguments"
	wd clean
	assert_rc 2
	wd --root "$T/v" clean
	assert_rc 0
	assert_out "The download cache is empty"
	wd --root "$T/v" --json clean --dry-run
	assert_rc 0
	assert_json 'd["freed_bytes"] == 0 and d["files"] == [] and d["dry_run"]'
	[ "$(snapshot "$T/v")" = "$snap" ] || fail "clean of a volume with no cache wrote to it"
}

run_tests
