/* common/signals: the deferred window the programs' handler reads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <string.h>

#include "common/signals.h"

static void test_outside_a_window_nothing_is_noted(void **state)
{
	(void)state;
	assert_int_equal(wd_defer_note(SIGTERM), 0);
	assert_int_equal(wd_defer_pending(), 0);
	wd_defer_begin();
	assert_int_equal(wd_defer_pending(), 0); /* not noted before it opened */
	assert_int_equal(wd_defer_end(), 0);
}

static void test_the_first_signal_of_a_window_is_kept_then_forgotten(void **state)
{
	(void)state;
	wd_defer_begin();
	assert_int_equal(wd_defer_note(SIGHUP), 1);
	assert_int_equal(wd_defer_note(SIGINT), 1);
	assert_int_equal(wd_defer_pending(), SIGHUP);
	assert_int_equal(wd_defer_end(), SIGHUP);
	/* closed: the next one is the handler's to act on */
	assert_int_equal(wd_defer_pending(), 0);
	assert_int_equal(wd_defer_note(SIGQUIT), 0);
	wd_defer_begin();
	assert_int_equal(wd_defer_end(), 0);
}

static void test_windows_nest(void **state)
{
	(void)state;
	wd_defer_begin();
	wd_defer_begin();
	assert_int_equal(wd_defer_note(SIGTERM), 1);
	assert_int_equal(wd_defer_end(), SIGTERM); /* inner: still deferred */
	assert_int_equal(wd_defer_note(SIGINT), 1);
	assert_int_equal(wd_defer_pending(), SIGTERM);
	assert_int_equal(wd_defer_end(), SIGTERM);
	assert_int_equal(wd_defer_note(SIGINT), 0);
}

/* A real signal through a handler that does what the programs' does
 * (where theirs would end the run, this one counts). */
static volatile sig_atomic_t not_deferred;

static void note_or_count(int sig)
{
	if (!wd_defer_note(sig))
		not_deferred = not_deferred + 1;
}

static void test_a_real_signal_in_a_window_is_noted(void **state)
{
	(void)state;
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = note_or_count;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGTERM, &sa, &old), 0);
	wd_defer_begin();
	raise(SIGTERM);
	assert_int_equal(wd_defer_end(), SIGTERM);
	assert_int_equal(not_deferred, 0);
	raise(SIGTERM); /* the window closed: the handler's own */
	assert_int_equal(not_deferred, 1);
	sigaction(SIGTERM, &old, NULL);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(wd_signal_name(SIGINT), "SIGINT");
	assert_string_equal(wd_signal_name(SIGTERM), "SIGTERM");
	assert_string_equal(wd_signal_name(SIGHUP), "SIGHUP");
	assert_string_equal(wd_signal_name(SIGQUIT), "SIGQUIT");
	assert_string_equal(wd_signal_name(SIGUSR1), "a signal");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_outside_a_window_nothing_is_noted),
		cmocka_unit_test(test_the_first_signal_of_a_window_is_kept_then_forgotten),
		cmocka_unit_test(test_windows_nest),
		cmocka_unit_test(test_a_real_signal_in_a_window_is_noted),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
