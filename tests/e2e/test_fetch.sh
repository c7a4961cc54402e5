#!/usr/bin/env bash
# Transfers through libcurl: the bundled repository (the program's own data)
# is read in place without a transfer, and every transfer, file:// included,
# goes through libcurl, in the transfer helper warpdrv-fetch.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pkg_lib.sh"
. "$FIX/pci/sysfs.sh"
B=${WARPDRV_BUILD:?}

# A VirtualBox guest with an Am79C973: detect names pcntnd from the bundled
# repository.
guest() {
	make_sysfs "$T/g" "${VBOX_BASE[@]}" "$(vbox_nic 0000:00:03.0 Am79C973)"
}

# The two programs link libsqlite3 and not libcurl; the transfer helper links
# libcurl and nothing of the state (dpkg-shlibdeps names them as the
# packages' dependencies: test_distro.sh).
t_programs_link_their_libraries() {
	local p needed
	for p in "$WD" "$WDA" "$B/warpdrv-fetch"; do
		needed=$(readelf -d "$p" | grep NEEDED)
		case $p:$needed in
		*warpdrv-fetch:*libsqlite3*) fail "$p: linked with libsqlite3: $needed" ;;
		*warpdrv-fetch:*libcurl*) ;;
		*warpdrv-fetch:*) fail "$p: not linked with libcurl: $needed" ;;
		*libcurl*) fail "$p: linked with libcurl (the helper's): $needed" ;;
		*libsqlite3*) ;;
		*) fail "$p: not linked with libsqlite3: $needed" ;;
		esac
	done
}

# A command that transfers nothing starts no helper; one that transfers
# starts one, which serves the run's transfers and ends with it. The helper
# refuses to be run by hand. (A wrapper that notes each start stands in the
# helper's place.)
t_the_helper_runs_only_for_a_transfer() {
	guest
	printf '#!/bin/sh\necho "$$" >>"%s/starts"\nexec "%s" "$@"\n' "$T" "$B/warpdrv-fetch" >"$T/wrap"
	chmod +x "$T/wrap"
	WARPDRV_FETCH_HELPER=$T/wrap wd detect --pci "sysfs:$T/g"
	assert_rc 0
	[ ! -e "$T/starts" ] || fail "detect started the helper"
	mkdir -p "$T/r" && cp "$B"/repo/* "$T/r/"
	WARPDRV_FETCH_HELPER=$T/wrap wd --repo "file://$T/r" info pcntnd
	assert_rc 0
	assert_out "pcntnd"
	# every transfer of the run through one helper
	[ "$(wc -l <"$T/starts")" = 1 ] || fail "not one helper for the run: $(cat "$T/starts")"
	pid=$(cat "$T/starts")
	[ ! -e "/proc/$pid" ] || [ "$(cat "/proc/$pid/stat" | cut -d' ' -f3)" = Z ] ||
		fail "the helper outlived the run"
	run "$B/warpdrv-fetch" </dev/null
	assert_rc 2
	assert_err "warpdrv-fetch: warpdrv's transfer helper: warpdrv starts it for its downloads; it is not run by hand"
}

# Where the kernel has Landlock, the helper can change no file by name, and
# its seccomp filter refuses a change of a file's mode: a file it tries to
# create and a mode it tries to change once its sandbox is set are refused,
# and its transfers (a file:// repository read, the body written to the
# descriptor it was given) still work.
t_the_helper_changes_no_file_by_name() {
	mkdir -p "$T/r" && cp "$B"/repo/* "$T/r/"
	: >"$T/probe" && chmod 600 "$T/probe"
	WARPDRV_FETCH_PROBE=$T/probe wd --repo "file://$T/r" info pcntnd
	assert_rc 0
	assert_out "pcntnd"
	assert_err "warpdrv-fetch: probe: chmod $T/probe refused (Operation not permitted)"
	[ "$(stat -c %a "$T/probe")" = 600 ] || fail "the helper changed $T/probe's mode"
	case $ERR in *"sandbox: none (no Landlock in this kernel"*) skip "$ERR" ;; esac
	assert_err "warpdrv-fetch: sandbox: Landlock ABI"
	assert_err ", seccomp"
	assert_err "warpdrv-fetch: probe: create $T/probe.new refused (Permission denied)"
	[ ! -e "$T/probe.new" ] || fail "the helper created $T/probe.new"
}

# A helper that cannot be started, that dies during a transfer, or that
# speaks another version of the messages is an error naming the URL, exit 1.
t_a_missing_or_dying_helper_is_a_clear_error() {
	mkdir -p "$T/r" && cp "$B"/repo/* "$T/r/"
	WARPDRV_FETCH_HELPER=$T/none wd --repo "file://$T/r" list
	assert_rc 1
	assert_err "file://$T/r/INDEX: cannot start the transfer helper $T/none: No such file"
	assert_err "install it again"
	# one that reads the request and dies
	printf '#!/bin/sh\nhead -c 1 >/dev/null\nkill -9 $$\n' >"$T/dies" && chmod +x "$T/dies"
	WARPDRV_FETCH_HELPER=$T/dies wd --repo "file://$T/r" list
	assert_rc 1
	assert_err "file://$T/r/INDEX: the transfer helper warpdrv-fetch was killed by signal 9 during the transfer"
	# one of another build (another version of the messages)
	printf '#!/bin/sh\nexec "%s" "$1" 999\n' "$B/warpdrv-fetch" >"$T/other" && chmod +x "$T/other"
	WARPDRV_FETCH_HELPER=$T/other wd --repo "file://$T/r" list
	assert_rc 1
	assert_err "warpdrv-fetch: this helper speaks version 1 of warpdrv's messages, warpdrv another (999): install warpdrv and its helper together"
	assert_err "file://$T/r/INDEX: the transfer helper warpdrv-fetch "
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
