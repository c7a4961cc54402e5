/* SIGINT, SIGTERM, SIGHUP and SIGQUIT, caught by both programs. */
#ifndef WD_UI_INTERRUPT_H
#define WD_UI_INTERRUPT_H

/* Installs the handler: inside a deferred window (common/signals.h: a
 * transaction between its first durable step and its end) the signal is
 * noted, and the transaction undoes or finishes its change and fails with
 * "interrupted"; outside one the run ends at once with "PROG: interrupted
 * by SIGTERM" and note (may be "") on stderr, exit 1. A signal ignored
 * when the program starts (nohup) stays ignored. Both strings must live as
 * long as the program. */
void ui_catch_signals(const char *prog, const char *note);

#endif
