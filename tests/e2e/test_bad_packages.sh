#!/usr/bin/env bash
# Bad input: every damaged or hostile package or index is refused with exit 3
# and a message saying what is wrong, and the volume keeps every byte.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pkg_lib.sh"

TOOL="$SRC/tests/e2e/wdp_tool.py"

# Installs $T/bad.wdp made by MUTATION and checks exit 3, MESSAGE, volume unchanged.
refused() { # MUTATION MESSAGE
	make_good_package
	make_volume "$T/v"
	python3 "$TOOL" "$1" "$T/good.wdp" "$T/bad.wdp" "$T/k/repo/test.key"
	before=$(snapshot "$T/v")
	wd --root "$T/v" --keys "$T/k" install "$T/bad.wdp"
	assert_rc 3
	assert_err "$2"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the volume changed"
}

t_bad_signature() { refused bad-signature "MANIFEST: bad signature"; }
t_missing_signature() { refused no-signature "MANIFEST: not signed"; }
t_hash_disagrees() { refused hash "member 'TEST.OS2' does not match the SHA-256"; }
t_size_disagrees() { refused size "member 'TEST.OS2' is 16 bytes; the manifest says 12"; }
t_truncated_gzip() { refused truncate "truncated"; }
t_corrupt_gzip() { refused corrupt-gzip "corrupt gzip stream"; }
t_symlink_member() { refused symlink "member 'TEST.OS2' is a symbolic link"; }
t_hardlink_member() { refused hardlink "member 'TEST.OS2' is a hard link"; }
t_device_member() { refused device "member 'TEST.OS2' is a device"; }
t_folder_member() { refused folder "member 'TEST.OS2/' is a folder"; }
t_absolute_member() { refused name:/etc/evil "member '/etc/evil' has an unsafe name"; }
t_dotdot_member() { refused name:../../evil "member '../../evil' has an unsafe name"; }
t_drive_letter_member() { refused 'name:C:EVIL' "member 'C:EVIL' has an unsafe name"; }
t_backslash_member() { refused 'name:..\..\EVIL' "has an unsafe name"; }
t_duplicate_member() { refused duplicate "member 'TEST.OS2' appears twice"; }
t_unlisted_member() { refused unlisted "member 'EXTRA.TXT' is not listed in the manifest"; }
t_listed_file_missing() { refused missing "the manifest lists 'TEST.OS2' but the package lacks it"; }
t_decompression_bomb() { refused bomb "more data than its manifest declares"; }
t_malformed_pci_field() { refused 'manifest:kind psd=>kind psd
pci 8086:zzzz rank 1' "pci: expected VENDOR:DEVICE in hex"; }
t_malformed_date_field() { refused 'manifest:released 2024-01-01=>released 2024-02-30' "released: expected a date"; }
t_unsafe_destination_signed() { refused 'manifest:\OS2\KEEP.SYS=>\OS2\..\..\KEEP.SYS' "unsafe destination"; }
t_unknown_field() { refused 'manifest:kind psd=>kind psd
frobnicate yes' "unknown field 'frobnicate'"; }

# Not bad: members in another order than the manifest's are each found (the
# reader looks from the one after the last it found, round to it).
t_members_out_of_order_are_accepted() {
	make_good_package
	make_volume "$T/v"
	python3 "$TOOL" reverse "$T/good.wdp" "$T/rev.wdp"
	wd --root "$T/v" --keys "$T/k" install "$T/rev.wdp"
	assert_rc 0
	[ "$(cat "$T/v/OS2/BOOT/NEW.ADD")" = "new adapter driver" ] || fail "NEW.ADD not installed"
	[ "$(cat "$T/v/IBMCOM/MACS/TEST.OS2")" = "test driver" ] || fail "TEST.OS2 not installed"
}

t_unknown_key() {
	make_good_package
	make_volume "$T/v"
	before=$(snapshot "$T/v")
	wd --root "$T/v" install "$T/good.wdp" # the test key is not trusted here
	assert_rc 3
	assert_err "signed by unknown key"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the volume changed"
}

t_revoked_key() {
	make_good_package
	make_volume "$T/v"
	wda verify "$T/good.wdp" --keys "$T/k"
	fpr=$(sed -n 's/.*signed by //p' "$T/out")
	[ -n "$fpr" ] || fail "no fingerprint"
	echo "$fpr" >"$T/k/revoked"
	before=$(snapshot "$T/v")
	wd --root "$T/v" --keys "$T/k" install "$T/good.wdp"
	assert_rc 3
	assert_err "signed by revoked key $fpr"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the volume changed"
}

# A fingerprint with spaces before a CRLF ending (an editor on another
# system) still revokes the key.
t_revoked_key_spaces_before_crlf() {
	make_good_package
	make_volume "$T/v"
	wda verify "$T/good.wdp" --keys "$T/k"
	fpr=$(sed -n 's/.*signed by //p' "$T/out")
	printf '# revoked\r\n\t%s  \r\n' "$fpr" >"$T/k/revoked"
	before=$(snapshot "$T/v")
	wd --root "$T/v" --keys "$T/k" install "$T/good.wdp"
	assert_rc 3
	assert_err "signed by revoked key $fpr"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the volume changed"
}

# The revoked file is read whole: a NUL byte in it (which would end a C-string
# reader early and leave the fingerprints after it trusted) is refused.
t_revoked_file_with_nul_byte() {
	make_good_package
	make_volume "$T/v"
	wda verify "$T/good.wdp" --keys "$T/k"
	fpr=$(sed -n 's/.*signed by //p' "$T/out")
	printf '# revoked\n\0\n%s\n' "$fpr" >"$T/k/revoked"
	before=$(snapshot "$T/v")
	wd --root "$T/v" --keys "$T/k" install "$T/good.wdp"
	assert_rc 3
	assert_err "revoked line 2: holds a NUL byte"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the volume changed"
}

# A repository in $T/repo holding the good package, indexed with the test key.
make_repo() {
	make_good_package
	mkdir -p "$T/repo"
	cp "$T/good.wdp" "$T/repo/"
	wda index "$T/repo" --key "$T/k/repo/test.key" "$@"
	assert_rc 0
	make_volume "$T/v"
}

index_refused() { # MESSAGE
	before=$(snapshot "$T/v")
	wd --root "$T/v" --keys "$T/k" --repo "$T/repo" install testpkg
	assert_rc 3
	assert_err "$1"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the volume changed"
}

t_index_bad_signature() {
	make_repo
	sed -i 's/^serial 1$/serial 9/' "$T/repo/INDEX"
	index_refused "INDEX: bad signature"
}

t_index_missing_signature() {
	make_repo
	sed -i '/^signature /d' "$T/repo/INDEX"
	index_refused "INDEX: not signed"
}

t_index_unknown_key() {
	make_repo
	mkdir -p "$T/k2/repo"
	wda keygen --out "$T/k2/repo/other"
	wda --keys "$T/k" index "$T/repo" --key "$T/k2/repo/other.key"
	assert_rc 0
	index_refused "signed by unknown key"
}

t_index_expired() {
	make_repo --expires 2030-01-01
	WARPDRV_NOW=2030-01-02 index_refused "expired on 2030-01-01"
}

t_index_package_hash_disagrees() {
	make_repo
	printf '\377' | dd of="$T/repo/good.wdp" bs=1 seek=200 conv=notrunc 2>/dev/null
	index_refused "does not match the SHA-256 in the index"
}

t_index_malformed_field() {
	make_repo
	body=$(grep -v '^signature ' "$T/repo/INDEX" | sed 's/^serial 1$/serial one/')
	printf '%s\n' "$body" >"$T/body"
	sig=$(openssl pkeyutl -sign -rawin -inkey "$T/k/repo/test.key" -in "$T/body" | od -An -v -tx1 | tr -d ' \n')
	fpr=$(sed -n 's/^signature \([0-9a-f]*\) .*/\1/p' "$T/repo/INDEX")
	{ cat "$T/body"; echo "signature $fpr $sig"; } >"$T/repo/INDEX"
	index_refused "serial must be a number"
}

t_index_serial_rollback() {
	make_repo --serial 5
	cp "$T/repo/INDEX" "$T/old-index"
	wda index "$T/repo" --key "$T/k/repo/test.key" --serial 6
	wd --root "$T/v" --keys "$T/k" --repo "$T/repo" install testpkg
	assert_rc 0
	wd --yes --root "$T/v" remove testpkg
	assert_rc 0
	cp "$T/old-index" "$T/repo/INDEX"
	user=$(snapshot "$T/v" var)
	wd --root "$T/v" --keys "$T/k" --repo "$T/repo" install testpkg
	assert_rc 3
	assert_err "index serial 5 is older than serial 6"
	[ "$(snapshot "$T/v" var)" = "$user" ] || fail "the volume's files changed"
}

run_tests
