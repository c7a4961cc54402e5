#!/usr/bin/env bash
# What the volume must not decide lives on the host or in signed data:
# freshness (the host state folder remembers each repository's highest
# index serial; an older stored catalog is refused for installs, a serial
# planted on the volume is ignored, no host record falls back to the
# expiry and says so) and where the subscription key goes (only to places
# the key itself or a signed index names). Each refusal: exit code,
# message, the volume unchanged, no credentials sent.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pkg_lib.sh"

NET="--connect-timeout 2 --speed-limit 1000 --speed-time 1"

FIXT="$TESTTMP/fixture"
mkdir -p "$FIXT/k/repo" "$FIXT/k/license" "$FIXT/recipe"
"$WDA" keygen --out "$FIXT/k/repo/test" >/dev/null
"$WDA" keygen --out "$FIXT/k/license/lic" >/dev/null
cat >"$FIXT/recipe/MANIFEST" <<'M'
format 1
name testpkg
version 1.0
released 2024-01-01
summary A package for the host state tests
kind psd
file TEST.OS2 \IBMCOM\MACS\TEST.OS2
M
printf 'test driver\n' >"$FIXT/recipe/TEST.OS2"
make_test_ca "$FIXT"

# Serves $T/www/a (testpkg VERSION at index serial SERIAL) over http.
publish() { # VERSION SERIAL
	rm -rf "$T/www/a"
	mkdir -p "$T/www/a" "$T/recipe"
	cp "$FIXT/recipe/"* "$T/recipe/"
	sed -i "s/^version .*/version $1/" "$T/recipe/MANIFEST"
	"$WDA" -q pack "$T/recipe" --key "$FIXT/k/repo/test.key" --out "$T/www/a/" >/dev/null
	"$WDA" -q index "$T/www/a" --key "$FIXT/k/repo/test.key" --serial "$2" >/dev/null
}

w() { wd --root "$T/v" --keys "$FIXT/k" $NET "$@"; }

# $T/v with repository main at $URL/a/, updated at serial 5 (testpkg 1.0),
# then at serial 6 (testpkg 1.1); $T/catalog.5 the stored catalog of the
# first update.
two_updates() {
	make_volume "$T/v"
	publish 1.0 5
	start_fault
	w repo add main "$URL/a/"
	assert_rc 0
	w update
	assert_rc 0
	cp "$T/v/var/cache/warpdrv/catalog.db" "$T/catalog.5"
	publish 1.1 6
	w update
	assert_rc 0
	assert_out "serial 6"
}

t_an_older_stored_catalog_is_refused_for_installs() {
	two_updates
	# the attacker's edit: the catalog of serial 5, which the key did sign
	cp "$T/catalog.5" "$T/v/var/cache/warpdrv/catalog.db"
	rm -f "$T/v/var/cache/warpdrv/catalog.validators"
	echo "* 500" >"$T/faults" # and the repository out of reach
	V0=$(snapshot "$T/v")
	for cmd in "install testpkg" "--dry-run install testpkg" "upgrade" "install testpkg=1.0"; do
		w --yes $cmd
		assert_rc 3
		assert_err "repository main: its stored catalog (index serial 5) is older than the one this host has seen (serial 6)"
		assert_err "run 'warpdrv update'"
		[ "$(snapshot "$T/v")" = "$V0" ] || fail "$cmd changed the volume"
	done
	# reading says so and goes on
	w list
	assert_rc 0
	assert_out "testpkg"
	assert_err "older than the one this host has seen"
	# an update puts it right
	: >"$T/faults"
	w update
	assert_rc 0
	w install testpkg
	assert_rc 0
	assert_out "Installed testpkg 1.1"
}

t_update_refuses_an_index_older_than_the_host_has_seen() {
	two_updates
	publish 1.0 5 # the server now replays serial 5
	rm -f "$T/v/var/cache/warpdrv/catalog.db" "$T/v/var/cache/warpdrv/catalog.validators"
	V0=$(snapshot "$T/v")
	w update
	assert_rc 3
	assert_err "index serial 5 is older than serial 6 already seen"
	[ "$(snapshot "$T/v")" = "$V0" ] || fail "a refused update changed the volume"
	grep -q " 6 " "$WARPDRV_HOST_STATE/indexes" || fail "the host forgot serial 6: $(cat "$WARPDRV_HOST_STATE/indexes")"
}

# A serial planted very high in the volume's database is not read: later
# updates go on.
t_a_serial_planted_on_the_volume_is_ignored() {
	two_updates
	python3 - "$T/v/var/lib/warpdrv/warpdrv.db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("UPDATE meta SET value = '999999999' WHERE key LIKE 'index-serial %'")
c.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('index-serial x y', '999999999')")
c.commit()
PY
	publish 1.2 7
	w update
	assert_rc 0
	assert_out "serial 7"
	w install testpkg
	assert_rc 0
	assert_out "Installed testpkg 1.2"
}

# A volume updated on another host: no record here, so the expiry is all
# that bounds its catalog, and every command that reads it says so.
t_no_host_record_falls_back_to_the_expiry_and_says_so() {
	two_updates
	export WARPDRV_HOST_STATE="$T/another-host"
	w list
	assert_rc 0
	assert_err "repository main: this host has no record of its index (the volume was updated elsewhere): its freshness rests on its expiry"
	w install testpkg
	assert_rc 0
	assert_out "Installed testpkg 1.1"
	# past the expiry (seven days by default), an install is refused with its age
	w --yes remove testpkg
	assert_rc 0
	V0=$(snapshot "$T/v")
	WARPDRV_NOW=$(date -u -d '+20 days' +%F) w install testpkg
	assert_rc 3
	assert_err "repository main: its stored catalog expired on"
	assert_err "days ago (this host has no record of it: its expiry is all that bounds its age)"
	assert_err "run 'warpdrv update' (or 'warpdrv repo remove main' to go on without it)"
	[ "$(snapshot "$T/v")" = "$V0" ] || fail "a refused install changed the volume"
}

t_an_index_expires_in_days_by_default() {
	publish 1.0 1
	today=$(date -u +%F)
	grep -q "^issued $today" "$T/www/a/INDEX" || fail "issued: $(head -5 "$T/www/a/INDEX")"
	grep -q "^expires $(date -u -d "$today +7 days" +%F)" "$T/www/a/INDEX" ||
		fail "the default expiry is not 7 days: $(head -5 "$T/www/a/INDEX")"
	wda -q index "$T/www/a" --key "$FIXT/k/repo/test.key" --expires 30d
	assert_rc 0
	grep -q "^expires $(date -u -d "$today +30 days" +%F)" "$T/www/a/INDEX" || fail "--expires 30d"
	wda -q index "$T/www/a" --key "$FIXT/k/repo/test.key" --expires soon
	assert_rc 2
	assert_err "--expires soon: expected YYYY-MM-DD or a number of days, such as 7d"
}

start_server() {
	local name=$1
	shift
	: >"$T/$name.log"
	fault_server "$T/$name." "${name}_URL" "$@"
}

# The subscription repository sub at $P_URL/a/ named by the key (issue
# --repo); $D_URL an attacker's https host that asks for credentials.
subscribed() {
	make_volume "$T/v"
	mkdir -p "$T/www"
	publish 1.0 2
	start_server P --cert "$FIXT/srv.pem" --key "$FIXT/srv.key" --auth "@$T/auth"
	start_server D --cert "$FIXT/srv.pem" --key "$FIXT/srv.key" --auth "attacker:wants-it"
	wda --json issue --key "$FIXT/k/license/lic.key" --customer 7 --entitlements drivers \
		--expires 2099-01-01 --repo "$P_URL/a/"
	assert_rc 0
	id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["key_id"])' "$T/out")
	key=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["key"])' "$T/out")
	printf '%s:%s\n' "$id" "$key" >"$T/auth"
	s() { wd --root "$T/v" --keys "$FIXT/k" --cacert "$FIXT/ca.pem" $NET "$@"; }
	s activate "$key"
	assert_rc 0
}

t_a_planted_subscription_row_gets_no_credentials() {
	subscribed
	s repo add sub "$P_URL/a/" --subscription
	assert_rc 0
	s update
	assert_rc 0
	grep -q "GET /a/INDEX range=- auth=yes" "$T/P.log" || fail "the key's own repository got no key: $(cat "$T/P.log")"
	# a row only the volume names: an attacker's https host, as a subscription repository
	python3 - "$T/v/var/lib/warpdrv/warpdrv.db" "$D_URL/steal/" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("INSERT INTO repository (name, url, subscription, added, seq) VALUES "
          "('evil', ?, 1, '2026-01-01', 99)", (sys.argv[2],))
c.commit()
PY
	V0=$(snapshot "$T/v")
	s update
	assert_rc 3
	assert_err "$D_URL/steal/ is a subscription repository that neither the activated key nor a signed index names, so the key is not sent there"
	assert_err "warpdrv-admin issue --repo URL"
	[ ! -s "$T/D.log" ] || fail "the attacker's host was asked: $(cat "$T/D.log")"
	# the same row as the one repository of a volume
	python3 - "$T/v/var/lib/warpdrv/warpdrv.db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("DELETE FROM repository WHERE name = 'sub'")
c.commit()
PY
	s install testpkg
	[ "$RC" != 0 ] || fail "installed from a repository nothing signed names"
	! grep -q "auth=yes" "$T/D.log" || fail "the attacker's host got the key: $(cat "$T/D.log")"
	! grep -qF "$key" "$T/D.log" || fail "the key reached the attacker's log"
}

# A key that names no repository is sent nowhere; one whose URL was edited
# fails its signature; one pasted without its URL is refused by count.
t_the_repositories_of_a_key_are_signed() {
	subscribed
	wda --json issue --key "$FIXT/k/license/lic.key" --customer 8 --entitlements drivers \
		--expires 2099-01-01
	plain=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["key"])' "$T/out")
	V0=$(snapshot "$T/v")
	s activate "${key%%+*}"
	assert_rc 4
	assert_err "the key names 1 repositories (+URL after it), and the text has 0"
	s activate "${key%/a/}/b/"
	assert_rc 4
	assert_err "bad signature"
	s activate "$plain+$P_URL/a/"
	assert_rc 4
	assert_err "the key names 0 repositories (+URL after it), and the text has 1"
	[ "$(snapshot "$T/v")" = "$V0" ] || fail "a refused key changed the volume"
	# issue's own checks
	wda issue --key "$FIXT/k/license/lic.key" --customer 9 --entitlements drivers \
		--expires 2099-01-01 --repo http://plain.example/
	assert_rc 2
	assert_err "issue: --repo http://plain.example/: an https:// URL of at most 200 characters"
	wda issue --key "$FIXT/k/license/lic.key" --customer 9 --entitlements drivers \
		--expires 2099-01-01 --repo https://a/ --repo https://b/ --repo https://c/ \
		--repo https://d/ --repo https://e/
	assert_rc 2
	assert_err "issue: --repo: at most 4 repositories"
	# the plain key activates, and a subscription repository then gets nothing
	s --yes activate "$plain"
	assert_rc 0
	s repo add sub "$P_URL/a/" --subscription
	assert_rc 0
	s update
	assert_rc 3
	assert_err "is a subscription repository that neither the activated key nor a signed index names"
	! grep -q "auth=yes" "$T/P.log" || fail "the key went to a place it does not name"
}

run_tests
