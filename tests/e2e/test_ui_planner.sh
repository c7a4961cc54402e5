#!/usr/bin/env bash
# ui/ renders and asks; it uses no planner internals (scripts/ui_planner.sh):
# no installer/*_internal.h or nic_ctx.h, no field of struct setup, whose
# body stays in installer/setup_internal.h; no state/ header, db_begin,
# db_commit or catalog_fetch outside the files still being moved.
. "$(dirname "$0")/lib.sh"

copy_sources() {
	mkdir -p "$T/tree"
	(cd "$SRC" && find . -name '*.[ch]' -not -path './build/*' -print0 |
		tar --null -T - -cf -) | tar -xf - -C "$T/tree"
}

t_the_front_end_uses_no_planner_internals() {
	run sh "$SRC/scripts/ui_planner.sh" "$SRC"
	assert_rc 0
	[ -z "$OUT" ] || fail "violations: $OUT"
}

t_an_internal_header_in_ui_fails() {
	copy_sources
	printf '#include "installer/setup_internal.h"\n#include "txn/txn_internal.h"\n' >>"$T/tree/ui/cmd_list.c"
	run sh "$SRC/scripts/ui_planner.sh" "$T/tree"
	assert_rc 1
	assert_out "ui/cmd_list.c:"
	assert_out "installer/setup_internal.h"
	assert_out "txn/txn_internal.h"
	assert_out "includes a private header of installer/"
	copy_sources
	printf '#include "installer/nic_ctx.h"\n' >"$T/tree/ui/x.h"
	run sh "$SRC/scripts/ui_planner.sh" "$T/tree"
	assert_rc 1
	assert_out "ui/x.h:"
}

t_a_field_of_struct_setup_named_in_ui_fails() {
	copy_sources
	printf 'static long gen_of(struct job *j)\n{\n\treturn j->s->generation;\n}\n' \
		>>"$T/tree/ui/cmd_setup.c"
	run sh "$SRC/scripts/ui_planner.sh" "$T/tree"
	assert_rc 1
	assert_out "ui/cmd_setup.c:"
	assert_out "names a field of struct setup"
	copy_sources
	printf 'static bool nic_of(struct setup *plan)\n{\n\treturn plan->nic_done;\n}\n' \
		>>"$T/tree/ui/cmd_upgrade.c"
	run sh "$SRC/scripts/ui_planner.sh" "$T/tree"
	assert_rc 1
	assert_out "ui/cmd_upgrade.c:"
}

t_struct_setup_defined_in_a_public_header_fails() {
	copy_sources
	printf 'struct setup {\n\tint x;\n};\n' >>"$T/tree/installer/setup.h"
	run sh "$SRC/scripts/ui_planner.sh" "$T/tree"
	assert_rc 1
	assert_out "./installer/setup.h: defines struct setup's fields"
}

t_state_transactions_and_fetches_in_ui_fail() {
	copy_sources
	printf '#include "state/holds.h"\n' >>"$T/tree/ui/cmd_list.c"
	printf 'static int b(struct db *db)\n{\n\treturn db_begin(db, NULL);\n}\n' \
		>>"$T/tree/ui/cmd_hold.c"
	printf 'static int c(struct db *db)\n{\n\treturn db_commit (db, NULL);\n}\n' \
		>>"$T/tree/ui/cmd_update.c"
	printf 'static int f(void)\n{\n\treturn catalog_fetch(0, 0, 0, 0, 0);\n}\n' \
		>>"$T/tree/ui/cmd_info.c"
	run sh "$SRC/scripts/ui_planner.sh" "$T/tree"
	assert_rc 1
	assert_out "ui/cmd_list.c:"
	assert_out "ui/cmd_list.c: includes a header of state/"
	assert_out "ui/cmd_hold.c: runs a transaction or a fetch of its own"
	assert_out "ui/cmd_update.c: runs a transaction or a fetch of its own"
	assert_out "ui/cmd_info.c: runs a transaction or a fetch of its own"
	# a header of ui/ too
	copy_sources
	printf '#include "state/db.h"\n' >>"$T/tree/ui/pkgutil.h"
	run sh "$SRC/scripts/ui_planner.sh" "$T/tree"
	assert_rc 1
	assert_out "ui/pkgutil.h: includes a header of state/"
}

run_tests
