#!/usr/bin/env bash
# The layer rule (scripts/layers.sh): dependencies run one way, down.
. "$(dirname "$0")/lib.sh"

# A copy of the tree's sources in $T/tree, to plant includes in.
copy_sources() {
	mkdir -p "$T/tree"
	(cd "$SRC" && find . -name '*.[ch]' -not -path './build/*' -print0 |
		tar --null -T - -cf -) | tar -xf - -C "$T/tree"
}

t_the_tree_keeps_its_layers() {
	run sh "$SRC/scripts/layers.sh" "$SRC"
	assert_rc 0
	[ -z "$OUT" ] || fail "violations: $OUT"
}

t_an_upward_include_fails() {
	copy_sources
	printf '#include "ui/ui.h"\n' >>"$T/tree/common/buf.c"
	run sh "$SRC/scripts/layers.sh" "$T/tree"
	assert_rc 1
	assert_out "common/buf.c:"
	assert_out "includes ui/ui.h of the higher layer ui/"
}

# The session is the handle every command's work takes: below installer/
# (which takes it), above the transaction engine (which it recovers with).
t_the_session_stays_below_installer_and_above_txn() {
	copy_sources
	printf '#include "installer/setup.h"\n' >>"$T/tree/session/session.c"
	printf '#include "session/session.h"\n' >>"$T/tree/txn/txn_lock.c"
	run sh "$SRC/scripts/layers.sh" "$T/tree"
	assert_rc 1
	assert_out "session/session.c:"
	assert_out "includes installer/setup.h of the higher layer installer/"
	assert_out "txn/txn_lock.c:"
	assert_out "includes session/session.h of the higher layer session/"
}

t_sibling_folders_may_not_include_each_other() {
	copy_sources
	printf '#include "pci/pci.h"\n' >>"$T/tree/os2/nif.c"
	run sh "$SRC/scripts/layers.sh" "$T/tree"
	assert_rc 1
	assert_out "os2/nif.c:"
	assert_out "a folder of the same layer"
}

t_including_a_c_file_fails() {
	copy_sources
	printf '#include "netbench/netio_text.c"\n' >>"$T/tree/tests/fuzz/fuzz_gz.c"
	run sh "$SRC/scripts/layers.sh" "$T/tree"
	assert_rc 1
	assert_out "includes a .c file"
}

t_a_folder_without_a_layer_fails() {
	copy_sources
	mkdir -p "$T/tree/newpart" && printf 'int x;\n' >"$T/tree/newpart/x.c"
	run sh "$SRC/scripts/layers.sh" "$T/tree"
	assert_rc 1
	assert_out "newpart/: a folder of sources with no layer"
}

t_the_tree_keeps_volume_files_in_the_confined_layer() {
	run sh "$SRC/scripts/confine.sh" "$SRC"
	assert_rc 0
	[ -z "$OUT" ] || fail "violations: $OUT"
}

t_a_path_call_outside_the_confined_layer_fails() {
	copy_sources
	printf 'static void x(const char *p)\n{\n\tunlink(p);\n}\n' >>"$T/tree/txn/txn_files.c"
	printf 'static int y(const char *p)\n{\n\treturn wd_exists(p) && rename(p, "b") == 0;\n}\n' \
		>>"$T/tree/os2/volfiles.c"
	printf 'static int z(int d)\n{\n\treturn openat(AT_FDCWD, "x", 0) + openat(d, "y", 0);\n}\n' \
		>>"$T/tree/state/txnlog.c"
	run sh "$SRC/scripts/confine.sh" "$T/tree"
	assert_rc 1
	assert_out "txn/txn_files.c:"
	assert_out "unlink() on a path outside fs/"
	assert_out "wd_exists() on a path outside fs/"
	assert_out "rename() on a path outside fs/"
	assert_out "openat() on a path outside fs/"
	# the handle-relative openat(d, ...) on the same line is not named twice
	[ "$(grep -c 'state/txnlog.c' "$T/out")" -eq 1 ] || fail "openat on a handle flagged: $OUT"
	# a host file said so passes
	copy_sources
	printf 'static void w(const char *p)\n{\n\tunlink(p); /* host: a test */\n}\n' >>"$T/tree/ui/out.c"
	run sh "$SRC/scripts/confine.sh" "$T/tree"
	[ "$(grep -c 'ui/out.c' "$T/out")" -eq 0 ] || fail "marked host call flagged: $OUT"
}

run_tests
