/* The programs' signal handler (ui/interrupt.h). What it does outside a
 * deferred window is async-signal-safe: write(2) and _exit(2) only. */
#include "ui/interrupt.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"
#include "common/signals.h"

static const char *sig_prog = "warpdrv", *sig_note = "";

static void put(const char *s)
{
	size_t n = strlen(s);
	while (n) {
		ssize_t w = write(STDERR_FILENO, s, n);
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

static void on_signal(int sig)
{
	if (wd_defer_note(sig))
		return; /* the transaction under way reads it at its next step */
	put(sig_prog);
	put(": interrupted by ");
	put(wd_signal_name(sig));
	put(sig_note);
	put("\n");
	wd_signal_unmount();
	_exit(WD_EFAIL);
}

void ui_catch_signals(const char *prog, const char *note)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
	sig_prog = prog;
	sig_note = note;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	/* a system call the signal lands in carries on: the library sees the
	 * signal at its next step, not as an EINTR anywhere */
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
		sigaddset(&sa.sa_mask, sigs[i]);
	for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
		struct sigaction old;
		/* one ignored from the start stays ignored: SIGHUP under nohup,
		 * SIGINT and SIGQUIT in a script's background job */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}
