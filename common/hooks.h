/* Test hooks: environment variables the tests and benchmarks use to steer a
 * run (WARPDRV_NOW for the date, WARPDRV_CRASH_AT, WARPDRV_FAIL_AT,
 * WARPDRV_PAUSE_AT with WARPDRV_PAUSE_FILE (txn/txn_step.c),
 * WARPDRV_SIGNAL_AT, WARPDRV_PAUSE_JOURNAL (state/db_vfs.c: a pause once
 * SQLite's journal is open)). WARPDRV_SIGNAL_AT=N:TERM (or INT,
 * HUP, QUIT) makes the process send itself that signal just before its Nth
 * durable step (txn/txn_step.c), as a host shutting down would.
 * WARPDRV_CRASH_AT=log stops it after a change is recorded, before its line
 * is written to the text log (txn/textlog.c).
 * They exist only in the programs built in build/
 * (WD_TEST_HOOKS=1, the default);
 * `make install` builds its programs with WD_TEST_HOOKS=0, where every hook
 * reads as unset. */
#ifndef WD_HOOKS_H
#define WD_HOOKS_H

#include <stdlib.h>

#ifndef WD_TEST_HOOKS
#define WD_TEST_HOOKS 0
#endif

/* getenv(name) where test hooks are compiled in, else NULL. */
static inline const char *wd_test_hook(const char *name)
{
#if WD_TEST_HOOKS
	return getenv(name);
#else
	(void)name;
	return NULL;
#endif
}

/* Where the variable name is set to PATH (test builds): creates PATH (a
 * host file of the test's) and waits, at most 20 s, until the test removes
 * it, so that a test changes the volume at a chosen moment. */
void wd_test_pause(const char *name);

#endif
