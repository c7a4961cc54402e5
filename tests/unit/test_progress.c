/* ui/progress: the bar line's text, and the byte units. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "ui/progress.h"

static void test_bytes_use_binary_units(void **state)
{
	(void)state;
	char b[32];
	progress_bytes(812, b, sizeof b);
	assert_string_equal(b, "812 B");
	progress_bytes(1536, b, sizeof b);
	assert_string_equal(b, "1.5 KiB");
	progress_bytes(3u << 20, b, sizeof b);
	assert_string_equal(b, "3.0 MiB");
}

static void test_line_shows_bar_bytes_rate_and_time_left(void **state)
{
	(void)state;
	char l[256];
	/* half of 2 MiB in 4 s: 256 KiB/s, 4 s left */
	progress_line("mmlem-2.06.wdp", 1u << 20, 2u << 20, 4.0, 86, l, sizeof l);
	assert_non_null(strstr(l, "mmlem-2.06.wdp "));
	assert_non_null(strstr(l, "[##########..........]"));
	assert_non_null(strstr(l, "  1.0 MiB/2.0 MiB  256.0 KiB/s  0:04 left"));
	assert_true(strlen(l) <= 86);
	progress_line("x", 2u << 20, 2u << 20, 4.0, 100, l, sizeof l);
	assert_non_null(strstr(l, "done"));
	/* unknown size: no bar, no time left */
	progress_line("INDEX", 5000, 0, 1.0, 100, l, sizeof l);
	assert_null(strchr(l, '['));
	assert_null(strstr(l, "left"));
	/* a narrow terminal cuts the line */
	progress_line("a-very-long-package-name-indeed.wdp", 1, 10, 1.0, 40, l, sizeof l);
	assert_int_equal(strlen(l), 40);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bytes_use_binary_units),
		cmocka_unit_test(test_line_shows_bar_bytes_rate_and_time_left),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
