/* The state database's schema rows kept in state/db.c for the check of each
 * open are the rows its steps write, and they stand only for those steps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/buf.h"
#include "state/db.h"
#include "state/schema.h"

static int steps_count(void)
{
	int n = 0;
	while (db_schema_steps[n])
		n++;
	return n;
}

static void test_the_kept_rows_are_the_latest_steps_rows(void **state)
{
	(void)state;
	int n = steps_count();
	const char *known = db_schema_rows_known(db_schema_steps, n);
	if (!known)
		fail_msg("state/db.c keeps no schema rows for the %d steps of state/schema.c "
			 "(fingerprint 0x%016llx): set KNOWN_VERSION, KNOWN_FNV and known_rows to "
			 "what db_schema_rows_built gives, or each open builds them again",
			 n, (unsigned long long)db_schema_fingerprint(db_schema_steps, n));
	struct wd_buf built = {0};
	struct wd_err err = {0};
	assert_int_equal(db_schema_rows_built(db_schema_steps, n, "database", &built, &err), 0);
	assert_int_equal(strlen(known), built.len);
	assert_memory_equal(known, built.p, built.len);
	wd_buf_free(&built);
}

static void test_other_steps_or_versions_have_no_kept_rows(void **state)
{
	(void)state;
	int n = steps_count();
	for (int v = 0; v < n; v++)
		assert_null(db_schema_rows_known(db_schema_steps, v));
	const char *changed[64] = {0};
	for (int v = 0; v < n && v < 63; v++)
		changed[v] = db_schema_steps[v];
	changed[n - 1] = "CREATE TABLE other (x);";
	assert_null(db_schema_rows_known(changed, n));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_kept_rows_are_the_latest_steps_rows),
		cmocka_unit_test(test_other_steps_or_versions_have_no_kept_rows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
