/* catalog/version: the order of driver versions and its edge cases. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "catalog/version.h"

/* a < b, and the order is antisymmetric. */
static void before(const char *a, const char *b)
{
	if (version_cmp(a, b) >= 0 || version_cmp(b, a) <= 0)
		fail_msg("expected %s < %s (got %d, %d)", a, b, version_cmp(a, b),
			 version_cmp(b, a));
}

static void same(const char *a, const char *b)
{
	if (version_cmp(a, b) || version_cmp(b, a))
		fail_msg("expected %s == %s", a, b);
}

static void test_numeric_runs_compare_as_numbers(void **state)
{
	(void)state;
	before("2.06", "2.10");
	before("2.9", "2.10");
	before("3.9.99", "3.23.16");
	before("3.23.9", "3.23.16");
	before("9", "10");
	before("4.13", "4.14");
	/* longer than any integer type: still numbers */
	before("1.99999999999999999999", "1.100000000000000000000");
}

static void test_leading_zeros_do_not_count(void **state)
{
	(void)state;
	same("2.06", "2.6");
	same("2.010", "2.10");
	same("1.00", "1.0");
	before("2.06", "2.07");
	before("2.006", "2.10");
}

static void test_letters_after_digits(void **state)
{
	(void)state;
	before("4.13", "4.13a");
	before("4.13a", "4.13b");
	before("4.13z", "4.14");
	before("4.13a", "4.13.1"); /* a number outranks letters in one place */
	same("4.13a", "4.13A");
	before("4.13", "4.13.0"); /* more parts: the later */
}

static void test_pre_release_sorts_before_the_release(void **state)
{
	(void)state;
	before("1.0-beta", "1.0");
	before("1.0-alpha", "1.0-beta");
	before("1.0-beta", "1.0-beta2");
	before("1.0-beta2", "1.0-rc1");
	before("1.0-rc1", "1.0-rc2");
	before("1.0-rc9", "1.0-rc10");
	before("1.0-rc2", "1.0");
	before("1.0", "1.0.1-beta");
	before("0.9", "1.0-beta");
	before("1.0~pre1", "1.0");
	/* a '-' before a digit is no pre-release: a later build */
	before("1.0", "1.0-2");
}

static void test_equal_versions(void **state)
{
	(void)state;
	same("2.06", "2.06");
	same("1.0-beta", "1.0-beta");
	same("3.23.16", "3.23.16");
	same("1.0_1", "1.0.1"); /* separators only separate */
}

static void test_invalid_versions(void **state)
{
	(void)state;
	const char *bad[] = {"", "beta", ".1", "1.", "1..2", "1.0 ", "1/0", "-1",
			     "123456789012345678901234567890123", "1.0-", NULL};
	for (int i = 0; bad[i]; i++) {
		if (version_valid(bad[i]))
			fail_msg("'%s' was taken as a version", bad[i]);
		before(bad[i], "0"); /* before every valid one */
	}
	const char *good[] = {"0", "2.06", "4.13a", "1.0-beta", "3.23.16", "1.0+b1", "7_1", NULL};
	for (int i = 0; good[i]; i++)
		if (!version_valid(good[i]))
			fail_msg("'%s' was refused", good[i]);
	int out = 99;
	struct wd_err e;
	assert_int_equal(version_compare("1..2", "1.2", &out, &e), -WD_EFAIL);
	assert_non_null(strstr(e.msg, "version '1..2': not a version"));
	assert_int_equal(out, 99);
	assert_int_equal(version_compare("2.06", "2.10", &out, &e), 0);
	assert_true(out < 0);
}

/* Sorting a shuffled list with the order gives the release history back. */
static int by_version(const void *a, const void *b)
{
	return version_cmp(*(const char *const *)a, *(const char *const *)b);
}

static void test_sorts_a_release_history(void **state)
{
	(void)state;
	const char *want[] = {"1.0-alpha", "1.0-beta", "1.0-rc1", "1.0", "1.0a", "1.1",
			      "2.06", "2.07", "2.10", "3.23.16", "4.13", "4.13a", "4.14"};
	size_t n = sizeof want / sizeof *want;
	const char *v[sizeof want / sizeof *want];
	for (size_t i = 0; i < n; i++)
		v[i] = want[(i * 5 + 3) % n]; /* 5 is prime to 13: a permutation */
	qsort(v, n, sizeof *v, by_version);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(v[i], want[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numeric_runs_compare_as_numbers),
		cmocka_unit_test(test_leading_zeros_do_not_count),
		cmocka_unit_test(test_letters_after_digits),
		cmocka_unit_test(test_pre_release_sorts_before_the_release),
		cmocka_unit_test(test_equal_versions),
		cmocka_unit_test(test_invalid_versions),
		cmocka_unit_test(test_sorts_a_release_history),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
