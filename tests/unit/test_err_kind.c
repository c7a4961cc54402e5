/* common/err.h's kinds and ui/exit_code.c: an error's kind is set where it is
 * made, kept through a prefix, and mapped to the exit code in one place. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "common/err.h"
#include "ui/exit_code.h"

static void test_each_code_has_its_kind_and_maps_back(void **state)
{
	(void)state;
	static const int codes[] = {WD_EFAIL, WD_EUSAGE, WD_ETRUST, WD_ELICENSE, WD_ENODEV};
	for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
		struct wd_err e = {0};
		assert_int_equal(wd_err_set(&e, codes[i], "x %d", 1), -codes[i]);
		assert_int_equal(e.kind, wd_kind_of_code(codes[i]));
		assert_int_not_equal(e.kind, WD_K_NONE);
		assert_int_equal(ui_exit_code(&e, -codes[i]), codes[i]);
	}
	assert_int_equal(wd_kind_of_code(0), WD_K_NONE);
	assert_int_equal(wd_kind_of_code(42), WD_K_NONE);
}

static void test_a_kind_of_its_own_keeps_the_message_and_code(void **state)
{
	(void)state;
	struct wd_err e = {0};
	int r = wd_err_setk(&e, WD_K_FILES_DIFFER, WD_ETRUST, "%d of %d installed files differ",
			    1, 2);
	assert_int_equal(r, -WD_ETRUST);
	assert_int_equal(e.kind, WD_K_FILES_DIFFER);
	assert_string_equal(e.msg, "1 of 2 installed files differ");
	assert_int_equal(ui_exit_code(&e, r), WD_ETRUST);
	/* a prefix keeps the kind */
	assert_int_equal(wd_err_prefix(&e, "verify"), -WD_ETRUST);
	assert_int_equal(e.kind, WD_K_FILES_DIFFER);
	/* recoded: the new code's own kind */
	assert_int_equal(wd_err_recode(&e, WD_EFAIL), -WD_EFAIL);
	assert_int_equal(e.kind, WD_K_FAIL);
	assert_int_equal(ui_exit_code(&e, -WD_ETRUST), WD_EFAIL);
	wd_err_clear(&e);
	assert_int_equal(e.kind, WD_K_NONE);
}

static void test_no_kind_falls_back_to_code_then_return(void **state)
{
	(void)state;
	struct wd_err e = {0};
	assert_int_equal(ui_exit_code(&e, -WD_ELICENSE), WD_ELICENSE);
	assert_int_equal(ui_exit_code(NULL, -WD_ENODEV), WD_ENODEV);
	assert_int_equal(ui_exit_code(NULL, 0), WD_EFAIL);
	e.code = WD_EUSAGE; /* made by hand, no kind */
	assert_int_equal(ui_exit_code(&e, -WD_EFAIL), WD_EUSAGE);
	/* a prefix on an empty error makes it a failure */
	wd_err_clear(&e);
	assert_int_equal(wd_err_prefix(&e, "x"), -WD_EFAIL);
	assert_int_equal(e.kind, WD_K_FAIL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_code_has_its_kind_and_maps_back),
		cmocka_unit_test(test_a_kind_of_its_own_keeps_the_message_and_code),
		cmocka_unit_test(test_no_kind_falls_back_to_code_then_return),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
