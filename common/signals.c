/* The deferred window of common/signals.h: two words a signal handler may
 * read and write (volatile sig_atomic_t), and the run's own mount it
 * detaches. */
#include "common/signals.h"

#include <signal.h>
#include <sys/mount.h>
#include <unistd.h>

static volatile sig_atomic_t depth, pending;

void wd_defer_begin(void)
{
	depth = depth + 1;
}

int wd_defer_end(void)
{
	if (depth > 1) {
		depth = depth - 1;
		return pending;
	}
	/* depth first: a signal from here on ends the run in its handler; one
	 * noted before is read below, never lost between the two */
	depth = 0;
	int sig = pending;
	pending = 0;
	return sig;
}

int wd_defer_pending(void)
{
	return depth ? pending : 0;
}

int wd_defer_note(int sig)
{
	if (!depth)
		return 0;
	if (!pending)
		pending = sig;
	return 1;
}

const char *wd_signal_name(int sig)
{
	switch (sig) {
	case SIGINT: return "SIGINT";
	case SIGTERM: return "SIGTERM";
	case SIGHUP: return "SIGHUP";
	case SIGQUIT: return "SIGQUIT";
	default: return "a signal";
	}
}

static const char *volatile own_mount;

void wd_signal_mount(const char *dir)
{
	own_mount = dir;
}

void wd_signal_unmount(void)
{
	const char *dir = own_mount;
	if (!dir)
		return;
	umount2(dir, MNT_DETACH); /* host: the run's own private mount */
	rmdir(dir); /* host: its private folder */
}
