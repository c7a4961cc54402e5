/* common/diff: unified diffs that apply, and the exact text of a small one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "common/diff.h"
#include "tests/diff_apply.h"

static void test_small_diff_text(void **state)
{
	(void)state;
	const char *a = "LIBPATH=.;C:\\OS2\\DLL\r\nDEVICE=C:\\IBMCOM\\PROTMAN.OS2 /I:C:\\IBMCOM\r\n"
			"DEVICE=C:\\IBMCOM\\MACS\\E1000.OS2\r\nCALL=C:\\IBMCOM\\PROTOCOL\\NETBIND.EXE\r\n";
	const char *b = "LIBPATH=.;C:\\OS2\\DLL\r\nDEVICE=C:\\IBMCOM\\PROTMAN.OS2 /I:C:\\IBMCOM\r\n"
			"DEVICE=C:\\IBMCOM\\MACS\\MMLEM.OS2\r\nCALL=C:\\IBMCOM\\PROTOCOL\\NETBIND.EXE\r\n";
	struct wd_buf out = {0};
	wd_diff(a, strlen(a), b, strlen(b), "a/CONFIG.SYS", "b/CONFIG.SYS", &out);
	assert_string_equal(wd_buf_cstr(&out),
			    "--- a/CONFIG.SYS\n+++ b/CONFIG.SYS\n@@ -1,4 +1,4 @@\n"
			    " LIBPATH=.;C:\\OS2\\DLL\n DEVICE=C:\\IBMCOM\\PROTMAN.OS2 /I:C:\\IBMCOM\n"
			    "-DEVICE=C:\\IBMCOM\\MACS\\E1000.OS2\n+DEVICE=C:\\IBMCOM\\MACS\\MMLEM.OS2\n"
			    " CALL=C:\\IBMCOM\\PROTOCOL\\NETBIND.EXE\n");
	wd_buf_reset(&out);
	wd_diff(a, strlen(a), a, strlen(a), "a", "b", &out);
	assert_int_equal(out.len, 0);
	wd_buf_free(&out);
}

static void test_no_final_newline_is_marked(void **state)
{
	(void)state;
	struct wd_buf out = {0};
	wd_diff("x\ny", 3, "x\nz", 3, "a", "b", &out);
	assert_string_equal(wd_buf_cstr(&out), "--- a\n+++ b\n@@ -1,2 +1,2 @@\n x\n-y\n"
					       "\\ No newline at end of file\n+z\n"
					       "\\ No newline at end of file\n");
	wd_buf_free(&out);
}

static void random_text(struct wd_buf *b, unsigned *seed, int lines)
{
	wd_buf_reset(b);
	for (int i = 0; i < lines; i++)
		wd_buf_addf(b, "line %d\n", rand_r(seed) % 6);
}

/* Random pairs of texts: the diff applied to the old text gives the new one. */
static void test_random_diffs_apply(void **state)
{
	(void)state;
	unsigned seed = 42;
	struct wd_buf a = {0}, b = {0}, d = {0};
	for (int round = 0; round < 2000; round++) {
		random_text(&a, &seed, rand_r(&seed) % 40);
		random_text(&b, &seed, rand_r(&seed) % 40);
		wd_buf_reset(&d);
		wd_diff(a.p ? a.p : "", a.len, b.p ? b.p : "", b.len, "a", "b", &d);
		size_t len;
		char *got = diff_apply(a.p ? a.p : "", a.len, d.p ? d.p : "", d.len, &len);
		assert_non_null(got);
		assert_int_equal(len, b.len);
		assert_memory_equal(got, b.p ? b.p : "", len);
		free(got);
	}
	wd_buf_free(&a);
	wd_buf_free(&b);
	wd_buf_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_diff_text),
		cmocka_unit_test(test_no_final_newline_is_marked),
		cmocka_unit_test(test_random_diffs_apply),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
