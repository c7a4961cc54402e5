#!/usr/bin/env bash
# Transfers through libcurl: the bundled repository (the program's own data)
# is read in place without a transfer, and every transfer, file:// included,
# goes through libcurl.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pkg_lib.sh"
. "$FIX/pci/sysfs.sh"
B=${WARPDRV_BUILD:?}

# A VirtualBox guest with an Am79C973: detect names pcntnd from the bundled
# repository.
guest() {
	make_sysfs "$T/g" "${VBOX_BASE[@]}" "$(vbox_nic 0000:00:03.0 Am79C973)"
}

# Both programs link libcurl and libsqlite3 (dpkg-shlibdeps names them as
# the packages' dependencies: test_distro.sh).
t_programs_link_libcurl_and_libsqlite3() {
	local p needed
	for p in "$WD" "$WDA"; do
		needed=$(readelf -d "$p" | grep NEEDED)
		case $needed in *libcurl*) ;; *) fail "$p: not linked with libcurl: $needed" ;; esac
		case $needed in *libsqlite3*) ;; *) fail "$p: not linked with libsqlite3: $needed" ;; esac
	done
}

# A file:// repository is a transfer like any other: libcurl moves it.
t_a_file_url_with_escapes_goes_through_libcurl() {
	mkdir -p "$T/my repo"
	cp "$B"/repo/* "$T/my repo/"
	for u in "$T/my repo" "file://$T/my%20repo" "file://localhost$T/my%20repo/"; do
		wd --json --repo "$u" info pcntnd
		assert_rc 0
		assert_json "d['packages'][0]['name'] == 'pcntnd'"
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

run_tests
