/* Signals held back while a change is under way.
 *
 * The programs (ui/main.c, ui/admin.c) catch SIGINT, SIGTERM, SIGHUP and
 * SIGQUIT. Outside a deferred window their handler ends the run at once
 * (one line, "interrupted", exit 1). Inside one it only notes the signal
 * (wd_defer_note) and returns: the transaction that opened the window reads
 * it at its next durable step (txn/txn_step.c) and, before its commit,
 * fails that step so that the change is undone; after it, finishes the
 * change. Then it says "interrupted" and fails (docs/recovery.md).
 *
 * Nothing here installs a handler, prints or exits. */
#ifndef WD_SIGNALS_H
#define WD_SIGNALS_H

/* Opens a deferred window (windows nest: the outermost one counts). */
void wd_defer_begin(void);
/* Closes it; at the outermost one returns the signal noted in the window
 * (0: none) and forgets it. From the moment it returns, a signal is no
 * longer deferred. */
int wd_defer_end(void);
/* The first signal noted in the open window, or 0. */
int wd_defer_pending(void);
/* For the programs' handler (async-signal-safe): notes sig and returns 1
 * when a window is open; returns 0 (noting nothing) when none is, and the
 * handler is to end the run. */
int wd_defer_note(int sig);
/* "SIGTERM" for the four signals, else "a signal" (async-signal-safe: a
 * string constant). */
const char *wd_signal_name(int sig);
/* A folder the run has mounted for itself (a disk image's volume served by
 * FUSE: session/source_disk.c) that a run ended by a signal must not leave
 * behind; NULL when there is none. dir must stay valid until cleared. */
void wd_signal_mount(const char *dir);
/* For the programs' handler, before it ends the run (async-signal-safe):
 * detaches that mount and removes its folder. */
void wd_signal_unmount(void);

#endif
