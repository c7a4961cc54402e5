#!/usr/bin/env bash
# Subscriptions: warpdrv-admin issue, warpdrv activate / license / deactivate.
# Each test makes its own licence and repository keys with openssl and a
# volume with only CONFIG.SYS; WARPDRV_NOW sets today.
. "$(dirname "$0")/lib.sh"

# Keys in $T/keys (license/lic.pub, repo/repo.pub), private halves beside;
# an untrusted licence key $T/other.key; a volume in $T/vol.
# The keys are made once per script run and copied.
KEYSRC="$TESTTMP/keysrc"
mkdir -p "$KEYSRC/keys/license" "$KEYSRC/keys/repo"
for k in lic repo other; do
	openssl genpkey -algorithm ed25519 -out "$KEYSRC/$k.key" 2>/dev/null
done
openssl pkey -in "$KEYSRC/lic.key" -pubout -out "$KEYSRC/keys/license/lic.pub"
openssl pkey -in "$KEYSRC/repo.key" -pubout -out "$KEYSRC/keys/repo/repo.pub"

mkenv() {
	cp -R "$KEYSRC/." "$T/"
	mkdir -p "$T/vol"
	printf 'REM test volume\r\n' >"$T/vol/CONFIG.SYS"
	export WARPDRV_NOW=2026-11-29
}

# issue VAR KEYFILE [issue options]: a key into $VAR (defaults: customer 1042,
# drivers+acpi, 2026-01-01 to 2027-01-01).
issue() {
	local var=$1 key=$2
	shift 2
	wda issue --key "$key" --customer 1042 --entitlements drivers,acpi \
		--issued 2026-01-01 --expires 2027-01-01 "$@"
	assert_rc 0
	printf -v "$var" '%s' "$OUT"
}

act() { wd --root "$T/vol" --keys "$T/keys" "$@"; }

db() { sqlite3 "$T/vol/var/lib/warpdrv/warpdrv.db" "$1"; }

# A key whose character at position $2 (0-based, in the text) is $3.
change_char() {
	printf '%s' "${1:0:$2}$3${1:$(($2 + 1))}"
}

t_issue_prints_a_key_that_fits() {
	mkenv
	issue K "$T/lic.key" --seats 5
	[ ${#K} -le 160 ] || fail "key is ${#K} characters"
	[[ $K =~ ^WD(-[0-9A-HJKMNP-TV-Z]{5}){26}$ ]] || fail "key shape: $K"
	assert_err "key id "
	wda --json issue --key "$T/lic.key" --customer 7 --entitlements acpi --expires 2027-05-01
	assert_rc 0
	assert_json 'd["customer"] == 7 and d["entitlements"] == ["acpi"] and d["issued"] == "2026-11-29" and d["expires"] == "2027-05-01" and d["seats"] == 1 and len(d["key_id"]) == 16 and d["key"].startswith("WD-")'
}

t_issue_refuses_bad_options() {
	mkenv
	wda issue --customer 1 --entitlements drivers --expires 2027-01-01
	assert_rc 2
	assert_err "--key is required"
	wda issue --key "$T/lic.key" --customer 1 --entitlements drivers,games --expires 2027-01-01
	assert_rc 2
	assert_err "unknown entitlement 'games'"
	wda issue --key "$T/lic.key" --customer 0 --entitlements drivers --expires 2027-01-01
	assert_rc 2
	assert_err "--customer 0"
	wda issue --key "$T/lic.key" --customer 1 --entitlements drivers --expires 2027-02-30
	assert_rc 2
	assert_err "expected a date as YYYY-MM-DD"
	wda issue --key "$T/lic.key" --customer 1 --entitlements drivers --issued 2027-01-02 --expires 2027-01-01
	assert_rc 2
	assert_err "before the issue date"
	wda issue --key "$T/keys/license/lic.pub" --customer 1 --entitlements drivers --expires 2027-01-01
	assert_rc 3
	assert_err "not a PEM private key"
}

t_activate_then_license_active() {
	mkenv
	issue K "$T/lic.key"
	act activate "$K"
	assert_rc 0
	assert_out "Activated key"
	[ "$(stat -c %a "$T/vol/var/lib/warpdrv/warpdrv.db")" = 600 ] || fail "database is not 0600"
	act --json license
	assert_rc 0
	assert_json 'd["state"] == "active" and d["customer"] == 1042 and d["entitlements"] == ["drivers", "acpi"] and d["issued"] == "2026-01-01" and d["expires"] == "2027-01-01" and d["days_left"] == 33 and len(d["key_id"]) == 16 and d["activated"] == "2026-11-29"'
	act license
	assert_rc 0
	assert_out "Subscription:  active"
	assert_out "Expires:       2027-01-01 (33 days left)"
	# The key is a credential: stored, never shown whole.
	[ "$(db 'SELECT key_text FROM subscription_keys')" = "$K" ] || fail "stored key differs"
	assert_no_out "${K:3:11}"
	act --json license
	assert_no_out "${K:3:11}"
}

t_license_none_writes_nothing() {
	mkenv
	before=$(snapshot "$T/vol")
	act license
	assert_rc 4
	assert_out "Subscription:  none"
	assert_out "no subscription is activated"
	act --json license
	assert_rc 4
	assert_json 'd["state"] == "none" and d["customer"] is None and d["entitlements"] == [] and d["key_id"] is None'
	[ "$(snapshot "$T/vol")" = "$before" ] || fail "license changed the volume"
	[ ! -e "$T/vol/var" ] || fail "license made the state folder"
}

t_license_after_activation_writes_nothing() {
	mkenv
	issue K "$T/lic.key"
	act activate "$K"
	assert_rc 0
	before=$(snapshot "$T/vol")
	WARPDRV_NOW=2027-03-01 act --json license
	assert_rc 4
	[ "$(snapshot "$T/vol")" = "$before" ] || fail "license changed the volume"
}

t_dry_run_activate_stores_nothing() {
	mkenv
	issue K "$T/lic.key"
	before=$(snapshot "$T/vol")
	act --dry-run activate "$K"
	assert_rc 0
	assert_out "is valid; nothing stored (--dry-run)"
	[ "$(snapshot "$T/vol")" = "$before" ] || fail "dry run changed the volume"
	act activate "$K"
	issue K2 "$T/lic.key" --customer 77
	before=$(snapshot "$T/vol")
	act -n --json activate "$K2"
	assert_rc 0
	assert_json 'd["stored"] is False and d["dry_run"] is True and d["customer"] == 77'
	[ "$(snapshot "$T/vol")" = "$before" ] || fail "dry run changed the volume"
}

t_activate_reads_forgivingly_from_file_and_stdin() {
	mkenv
	issue K "$T/lic.key"
	# Lower case, line breaks, O for 0, I and L for 1, spaces for dashes.
	printf '%s\n' "$K" | tr 'A-Z-' 'a-z ' | tr '0' 'O' | fold -w 40 >"$T/key.txt"
	sed -i 's/1/l/g' "$T/key.txt"
	act activate --file "$T/key.txt"
	assert_rc 0
	id=$(db 'SELECT key_id FROM subscription_keys WHERE ended IS NULL')
	act deactivate
	RC=0
	"$WD" --root "$T/vol" --keys "$T/keys" activate --file - <"$T/key.txt" >"$T/out" 2>"$T/err" || RC=$?
	assert_rc 0
	assert_out "Activated key $id"
	# Pasted without quotes: several arguments.
	act deactivate
	act activate ${K//-/ }
	assert_rc 0
	act activate
	assert_rc 2
	assert_err "no key given"
	act activate "$K" --file "$T/key.txt"
	assert_rc 2
	act activate --file "$T/missing.txt"
	assert_rc 1
	assert_err "missing.txt"
}

# A key file saved with a UTF-8 byte order mark (as Notepad does) is a key;
# one over 64 KiB is refused unread, exit 4 like every other key refusal.
t_activate_file_with_a_bom_or_too_large() {
	mkenv
	issue K "$T/lic.key"
	before=$(snapshot "$T/vol")
	{ head -c 65537 /dev/zero | tr '\0' ' '; printf '%s\n' "$K"; } >"$T/big.txt"
	act activate --file "$T/big.txt"
	assert_rc 4
	assert_err "$T/big.txt: $(stat -c %s "$T/big.txt") bytes, more than a key file holds (at most 65536"
	[ "$(snapshot "$T/vol")" = "$before" ] || fail "a refused key file changed the volume"
	printf '\357\273\277%s\r\n' "$K" >"$T/bom.txt"
	act activate --file "$T/bom.txt"
	assert_rc 0
	id=$(db 'SELECT key_id FROM subscription_keys WHERE ended IS NULL')
	assert_out "Activated key $id"
	# PEM keys saved with a BOM are keys too (the licence key's private half)
	{ printf '\357\273\277'; cat "$T/lic.key"; } >"$T/bomlic.key"
	wda issue --key "$T/bomlic.key" --customer 5 --entitlements drivers --expires 2027-01-01
	assert_rc 0
	assert_out "WD-"
	# a BOM and nothing after it is still no key
	printf '\357\273\277\r\n' >"$T/bomonly.txt"
	before=$(snapshot "$T/vol")
	act activate --file "$T/bomonly.txt"
	assert_rc 4
	assert_err "the subscription key is empty"
	[ "$(snapshot "$T/vol")" = "$before" ] || fail "a refused key changed the volume"
}

# Every refusal of a bad key: exit 4, a message that says which, nothing stored.
refuse() { # KEY MESSAGE
	before=$(snapshot "$T/vol")
	act activate "$1"
	assert_rc 4
	assert_err "$2"
	[ "$(snapshot "$T/vol")" = "$before" ] || fail "a refused key changed the volume"
}

t_mistyped_key_names_its_group() {
	mkenv
	issue K "$T/lic.key"
	# Group 7 starts at 3 + 6*6; change its third character to another one.
	pos=$((3 + 6 * 6 + 2))
	c=${K:$pos:1}
	[ "$c" = 7 ] && n=8 || n=7
	refuse "$(change_char "$K" $pos $n)" "group 7 of 26 looks mistyped"
	refuse "$(change_char "$K" $pos U)" "group 7 of 26 holds 'U', which is not a key character"
	refuse "${K:0:17}${K:18}" "group 3 of 26 has 4 characters, not 5"
	refuse "${K:0:152}" "the key has 25 groups, not 26"
	refuse "XY-${K:3}" "starts with WD-"
	act --json activate "$(change_char "$K" $pos $n)"
	assert_rc 4
	assert_json 'd["error"]["exit_code"] == 4 and "group 7 of 26" in d["error"]["message"]'
	[ ! -e "$T/vol/var" ] || fail "a refused key made the state folder"
}

t_bad_signatures_and_roles_are_refused() {
	mkenv
	issue K "$T/other.key"
	refuse "$K" "bad signature: no trusted licence key verified"
	issue K "$T/repo.key"
	refuse "$K" "signed by repository key"
	refuse "$K" "wrong role"
	# A licence key that is trusted only as a repository key is the wrong role too.
	cp "$T/keys/license/lic.pub" "$T/keys/repo/lic-as-repo.pub"
	rm "$T/keys/license/lic.pub"
	issue K "$T/lic.key"
	refuse "$K" "wrong role"
	rm "$T/keys/repo/"*.pub
	refuse "$K" "no trusted licence key"
	# A revoked licence key.
	openssl pkey -in "$T/lic.key" -pubout -out "$T/keys/license/lic.pub"
	openssl pkey -in "$T/lic.key" -pubout -outform DER | tail -c 32 | sha256sum | cut -d' ' -f1 >"$T/keys/revoked"
	refuse "$K" "which is revoked"
}

# Re-encodes a key with another format version, check symbols and all, as
# docs/subscription.md describes: what an older warpdrv would see of a newer key.
with_version() { # KEY VERSION
	python3 - "$1" "$2" <<'EOF'
import sys
A = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
body = sys.argv[1][3:].replace("-", "")
bits = "".join(format(A.index(c), "05b") for c in body[:128])
b = bytearray(int(bits[i:i + 8], 2) for i in range(0, 640, 8))
b[0] = int(sys.argv[2])
bits = "".join(format(x, "08b") for x in b)
sym = [int(bits[i:i + 5], 2) for i in range(0, 640, 5)]
exp, x = [], 1
for _ in range(31):
    exp.append(x)
    x <<= 1
    if x & 32:
        x ^= 0x25
log = {v: i for i, v in enumerate(exp)}
mul = lambda v, e: exp[(log[v] + e) % 31] if v else 0
s0 = s1 = 0
for j, v in enumerate(sym):
    g, k = divmod(j, 5)
    s0 ^= mul(v, k)
    s1 ^= mul(v, k + g)
sym += [s0, s1]
t = "".join(A[v] for v in sym)
print("WD-" + "-".join(t[i:i + 5] for i in range(0, 130, 5)))
EOF
}

t_unknown_format_version_is_refused() {
	mkenv
	issue K "$T/lic.key"
	[ "$(with_version "$K" 1)" = "$K" ] || fail "the documented encoding does not reproduce the key"
	refuse "$(with_version "$K" 2)" "format version 2, which this warpdrv does not know"
}

t_expired_key_is_stored_with_a_warning() {
	mkenv
	issue K "$T/lic.key" --expires 2026-06-30
	act activate "$K"
	assert_rc 0
	assert_err "expired on 2026-06-30: it still covers drivers, acpi packages released up to 2026-06-30"
	act --json license
	assert_rc 4
	assert_json 'd["state"] == "expired" and d["days_left"] == 0 and d["expires"] == "2026-06-30"'
	act license
	assert_out "Expired:       2026-06-30"
}

t_new_key_replaces_old_which_stays_in_history() {
	mkenv
	issue A "$T/lic.key"
	issue B "$T/lic.key" --customer 2001 --entitlements drivers
	act activate "$A"
	act --yes activate "$B"
	assert_rc 0
	assert_out "it replaces key"
	act --json license
	assert_json 'd["customer"] == 2001 and d["entitlements"] == ["drivers"]'
	[ "$(db "SELECT count(*) FROM subscription_keys WHERE ended_why = 'replaced'")" = 1 ] || fail "old key not in history"
	[ "$(db "SELECT key_text FROM subscription_keys WHERE ended_why = 'replaced'")" = "$A" ] || fail "history lost the old key"
	# The same key again changes nothing.
	act activate "$B"
	assert_rc 0
	assert_out "already the activated key"
	[ "$(db 'SELECT count(*) FROM subscription_keys')" = 2 ] || fail "history grew"
}

t_deactivate() {
	mkenv
	act deactivate
	assert_rc 0
	assert_out "nothing to do"
	[ ! -e "$T/vol/var" ] || fail "deactivate made the state folder"
	issue K "$T/lic.key"
	act activate "$K"
	before=$(snapshot "$T/vol")
	act -n deactivate
	assert_rc 0
	assert_out "Would deactivate"
	[ "$(snapshot "$T/vol")" = "$before" ] || fail "dry run changed the volume"
	act --json deactivate
	assert_rc 0
	assert_json 'd["deactivated"] is True and len(d["key_id"]) == 16'
	act license
	assert_rc 4
	assert_out "Subscription:  none"
	[ "$(db "SELECT ended_why FROM subscription_keys")" = deactivated ] || fail "history lost the key"
}

t_clock_set_back_fails_checks() {
	mkenv
	issue K "$T/lic.key"
	act activate "$K"
	[ "$(db "SELECT value FROM meta WHERE key = 'last_seen'")" = 2026-11-29 ] || fail "last date seen not kept"
	WARPDRV_NOW=2026-11-28 act license
	assert_rc 0
	WARPDRV_NOW=2026-11-20 act --json license
	assert_rc 4
	assert_json 'd["state"] == "clock" and "today is 2026-11-20" in d["reason"] and "2026-11-29" in d["reason"]'
	issue K2 "$T/lic.key" --customer 5
	WARPDRV_NOW=2026-11-20 refuse "$K2" "the clock looks set back: today is 2026-11-20"
	# A key issued after today tells the same on a fresh volume.
	rm -rf "$T/vol/var"
	issue K3 "$T/lic.key" --issued 2026-12-15 --expires 2027-12-15
	refuse "$K3" "the clock looks set back"
}

t_revoked_key_stops_entitling_and_is_refused() {
	mkenv
	issue K "$T/lic.key"
	act activate "$K"
	id=$(db 'SELECT key_id FROM subscription_keys')
	# What the repository index update does with the index's revoked list.
	db "INSERT INTO revoked_keys (key_id, source) VALUES ('${id^^}', 'test index')"
	act --json license
	assert_rc 4
	assert_json 'd["state"] == "revoked" and "revoked by the vendor" in d["reason"]'
	act deactivate
	refuse "$K" "key $id not activated: subscription key $id has been revoked"
}

t_a_volume_is_needed() {
	mkenv
	issue K "$T/lic.key"
	wd --keys "$T/keys" activate "$K"
	assert_rc 2
	assert_err "no OS/2 volume given"
	wd --root "$T/nowhere" license
	assert_rc 1
	assert_err "no such folder"
}

run_tests
