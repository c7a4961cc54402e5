#!/usr/bin/env bash
# One description of each --json document, docs/json.md, installed beside the
# man pages, which name it: where the man page lists a document's members
# (clean's), they are the ones the program prints and json.md describes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pkg_lib.sh"

# The man page's paragraph of a command (from its .B/.BR line to the next .TP).
man_paragraph() { # COMMAND
	awk -v c="$1" '$0 == ".B " c { on = 1; next } on && /^\.(TP|SH|PP)/ { exit } on' \
		"$SRC/docs/warpdrv.1"
}

t_clean_json_members_are_those_the_man_page_and_json_md_name() {
	make_volume "$T/v"
	local c="$T/v/var/cache/warpdrv/packages"
	mkdir -p "$c/sub"
	echo a >"$c/a-1.wdp"
	echo b >"$c/b-1.wdp.part"
	ln -s /etc/passwd "$c/l.wdp"
	local before
	before=$(snapshot "$T/v")
	wd --root "$T/v" --json -n clean
	assert_rc 0
	[ "$(snapshot "$T/v")" = "$before" ] || fail "clean --dry-run changed the volume"
	python3 - "$T/out" >"$T/printed" <<-'PY'
	import json, sys
	d = json.load(open(sys.argv[1]))
	keys = set(d) - {"format"}
	for k in ("files", "left"):
	    assert d[k], k + " is empty: the test needs one of each"
	    keys |= set(d[k][0])
	print("\n".join(sorted(keys)))
	PY
	man_paragraph clean >"$T/man"
	[ -s "$T/man" ] || fail "no clean paragraph in warpdrv.1"
	grep -o '"[a-z_]*"' "$T/man" | tr -d '"' | sort -u >"$T/in_man"
	diff "$T/printed" "$T/in_man" >"$T/diff" ||
		fail "clean's --json members and the man page's differ: $(cat "$T/diff")"
	grep -q 'json.md' "$T/man" || fail "the man page's clean does not refer to json.md"
	sed -n '/^### `warpdrv clean`/,/^###/p' "$SRC/docs/json.md" | grep -o '`[a-z_]*`' | tr -d '`' |
		sort -u >"$T/in_doc"
	[ -n "$(comm -23 "$T/printed" "$T/in_doc")" ] &&
		fail "json.md's clean lacks: $(comm -23 "$T/printed" "$T/in_doc" | tr '\n' ' ')"
	[ -z "$(comm -13 "$T/printed" "$T/in_doc")" ] ||
		fail "json.md's clean names what clean does not print: $(comm -13 "$T/printed" "$T/in_doc" | tr '\n' ' ')"
}

# info's document is {"packages": [...]} for one package as for several, as
# json.md and the man page say.
t_info_json_is_a_list_for_one_package() {
	wd --json info e1000
	assert_rc 0
	assert_json 'list(d) == ["format", "packages"] and len(d["packages"]) == 1'
	grep -q '{"packages": \[...\]} for one package as for several' "$SRC/docs/warpdrv.1" ||
		fail "warpdrv.1 does not say info's document is a list for one package too"
}

t_man_pages_name_json_md_and_it_is_installed() {
	grep -q '/usr/share/doc/warpdrv/json.md' "$SRC/docs/warpdrv.1" || fail "warpdrv.1 does not name json.md"
	grep -q '/usr/share/doc/warpdrv/json.md' "$SRC/docs/warpdrv-admin.1" ||
		fail "warpdrv-admin.1 does not name json.md"
	sed -n '/^USER_DOCS/,/^install:/p' "$SRC/Makefile" | grep -q 'docs/json.md' ||
		fail "make install does not install docs/json.md"
}

CASES_AT_ONCE=2
run_tests
