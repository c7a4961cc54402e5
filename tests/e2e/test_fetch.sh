#!/usr/bin/env bash
# Transfers without a linked libcurl: the programs start without it, the
# bundled repository (the program's own data) is read in place without it,
# and every transfer, file:// included, loads it then; a libcurl that cannot
# be loaded fails that transfer only, naming the library and the package to
# install, with nothing changed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pkg_lib.sh"
. "$FIX/pci/sysfs.sh"
B=${WARPDRV_BUILD:?}

# A VirtualBox guest with an Am79C973: detect names pcntnd from the bundled
# repository.
guest() {
	make_sysfs "$T/g" "${VBOX_BASE[@]}" "$(vbox_nic 0000:00:03.0 Am79C973)"
}

# libcurl here, libsqlite3 in test_sqlite_lib.sh: both are loaded, not linked.
t_programs_link_neither_libcurl_nor_libsqlite3() {
	local needed
	needed=$(readelf -d "$WD" "$WDA" | grep NEEDED)
	case $needed in *libcrypto*) ;; *) fail "readelf shows no libraries: $needed" ;; esac
	case $needed in *curl*) fail "linked with libcurl: $needed" ;; esac
	case $needed in *sqlite*) fail "linked with libsqlite3: $needed" ;; esac
}

t_detect_with_drivers_named_loads_no_libcurl() {
	guest
	LD_DEBUG=libs wd detect --pci "sysfs:$T/g"
	assert_rc 0
	assert_out "0000:00:03.0: driver pcntnd"
	grep -q 'calling init: .*libcrypto' "$T/err" || fail "LD_DEBUG shows no library start: $ERR"
	! grep -q 'libcurl' "$T/err" || fail "libcurl was loaded: $(grep libcurl "$T/err")"
}

# A file:// repository is a transfer like any other: libcurl moves it.
t_a_file_url_with_escapes_goes_through_libcurl() {
	mkdir -p "$T/my repo"
	cp "$B"/repo/* "$T/my repo/"
	for u in "$T/my repo" "file://$T/my%20repo" "file://localhost$T/my%20repo/"; do
		LD_DEBUG=libs wd --json --repo "$u" info pcntnd
		assert_rc 0
		assert_json "d['packages'][0]['name'] == 'pcntnd'"
		grep -q 'calling init: .*libcurl' "$T/err" || fail "$u: libcurl was not loaded"
	done
}

t_bad_file_urls_fail_naming_the_url() {
	wd --repo "file://$T/none" list
	assert_rc 1
	assert_err "file://$T/none/INDEX: "
	mkdir -p "$T/r/INDEX"  # libcurl reads a folder as no bytes: an unsigned index
	wd --repo "file://$T/r" list
	assert_rc 3
	assert_err "file://$T/r/INDEX: not signed"
	for u in "file://elsewhere$T/r" "file://$T/r%00x"; do
		wd --repo "$u" list
		assert_rc 1
		assert_err "$u/INDEX: "
	done
}

# A package in a file:// repository longer or shorter than its index says:
# refused (exit 3) as a download would be, nothing installed.
t_a_local_package_of_the_wrong_size_is_refused() {
	make_key
	make_recipe
	mkdir -p "$T/r"
	wda pack "$T/recipe" --key "$T/k/repo/test.key" --out "$T/r/"
	assert_rc 0
	wda index "$T/r" --key "$T/k/repo/test.key" --serial 1
	assert_rc 0
	make_volume "$T/v"
	local before size
	before=$(snapshot "$T/v")
	size=$(stat -c %s "$T/r/testpkg-1.0.wdp")
	cp "$T/r/testpkg-1.0.wdp" "$T/good"
	printf x >>"$T/r/testpkg-1.0.wdp"
	wd --root "$T/v" --keys "$T/k" --repo "$T/r" --yes install testpkg
	assert_rc 3
	assert_err "testpkg-1.0.wdp: longer than the $size bytes expected; cut off and refused"
	head -c 100 "$T/good" >"$T/r/testpkg-1.0.wdp"
	wd --root "$T/v" --keys "$T/k" --repo "$T/r" --yes install testpkg
	assert_rc 3
	assert_err "testpkg-1.0.wdp: 100 bytes; the index says $size"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "a refused package changed the volume"
	cp "$T/good" "$T/r/testpkg-1.0.wdp"
	wd --root "$T/v" --keys "$T/k" --repo "file://$T/r" --yes install testpkg
	assert_rc 0
	assert_same_file "$T/recipe/TEST.OS2" "$T/v/IBMCOM/MACS/TEST.OS2"
}

t_no_libcurl_fails_a_download_only_and_changes_nothing() {
	make_volume "$T/v"
	wd --root "$T/v" repo add main http://127.0.0.1:9/r/
	assert_rc 0
	guest
	local before
	before=$(snapshot "$T/v")
	export WARPDRV_LIBCURL=libcurl-absent.so.4
	wd --root "$T/v" update
	assert_rc 1
	assert_err "http://127.0.0.1:9/r/INDEX: downloads need libcurl, and libcurl-absent.so.4 cannot be loaded"
	assert_err "install the package libcurl4 (apt-get install libcurl4)"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "update changed the volume"
	wd --repo http://127.0.0.1:9/r/ list
	assert_rc 1
	assert_err "libcurl-absent.so.4 cannot be loaded"
	# what needs no download still works
	wd --root "$T/v" detect --pci "sysfs:$T/g"
	assert_rc 0
	assert_out "0000:00:03.0: driver pcntnd"
	wd --root "$T/v" --dry-run install pcntnd
	assert_rc 0
	[ "$(snapshot "$T/v")" = "$before" ] || fail "detect or a dry run changed the volume"
}

t_a_library_that_is_not_libcurl_is_refused() {
	WARPDRV_LIBCURL=libz.so.1 wd --repo http://127.0.0.1:9/r/ list
	assert_rc 1
	assert_err "libz.so.1 has no curl_global_init (not libcurl 7.85 or later); install the package libcurl4"
}

run_tests
