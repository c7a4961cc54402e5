/* The plain-text log on the volume: var/log/warpdrv.log (\VAR\LOG\WARPDRV.LOG
 * in the guest, whatever the case on disk), one line per transaction, for a
 * user to read with TYPE inside the guest (docs/recovery.md, "The text log").
 *
 *   2026-12-01T22:41:05Z setup | mmlem 2.06, acpi-psd 3.23.16 | generation 1 | done
 *
 * The time is UTC, with Z; the fields are the command, the packages (NAME
 * VERSION, NAME OLD -> NEW for a version change, NAME VERSION removed), the
 * generation (or -) and the outcome: done, undone (a failure put the volume
 * back), recovered: finished or recovered: undone (the next run finished or
 * undid what a crash left), abandoned (recover --abandon). ASCII only (any
 * other byte is written as \xNN), CR LF endings, at most TEXTLOG_MAX bytes:
 * the oldest lines are dropped.
 *
 * Crash consistency: the line the change records is stored in the
 * database's meta table by the same commit that records the change
 * ("textlog-last"; the intent's part in "textlog-intent", for recovery),
 * and the log file is rewritten afterwards (read bounded, appended, written
 * as a new file and renamed over the old: fs_write_atomic). Every writing
 * run, after its recovery, appends the stored line when the log does not end
 * with it, so a crash between the commit and the rename loses no line, and
 * the log never says "done" of a change that was undone. */
#ifndef WD_TEXTLOG_H
#define WD_TEXTLOG_H

#include "txn/txn.h"

#define TEXTLOG_MAX (64 * 1024)
#define TEXTLOG_META_LAST "textlog-last"
#define TEXTLOG_META_INTENT "textlog-intent"

/* The command, packages and generation of a plan, read before it is applied
 * (the versions it changes from are the installed ones): malloc'd. */
char *textlog_describe(struct db *db, const struct txn_plan *plan, const char *what);
/* The whole line (without CR LF): the time now, what, the outcome; ASCII. */
char *textlog_line(const char *what, const char *outcome);
/* Appends line to the log unless the log ends with it already. */
int textlog_append(const struct volume *v, const char *line, struct wd_err *err);
/* The transaction's part (txn/txn_apply.c, txn_recover.c):
 * textlog_begin describes a plan about to be applied and makes its "done"
 * line (t->log_desc, t->log_line); textlog_intent stores the description
 * with the intent (inside its database transaction); txn_record_done
 * stores t->log_line with the commit; textlog_outcome writes the line of
 * what became of it (done, or undone: that line stored first), or nothing
 * when the change was left to recovery; textlog_forget drops it all.
 * textlog_recovering makes the line of a recovery from the stored
 * description of the interrupted change. */
void textlog_begin(struct txn *t, const struct txn_plan *plan);
int textlog_intent(struct txn *t, long long id, struct wd_err *err);
void textlog_outcome(struct txn *t, bool done, bool undone);
void textlog_forget(struct txn *t);
struct txnlog_pending;
void textlog_recovering(struct txn *t, const struct txnlog_pending *p, const char *outcome);
/* After recovery: the line the database says was recorded last, appended
 * when the log lacks it. Errors are not the transaction's: they leave the
 * line stored for the next run. */
void textlog_catch_up(struct txn *t);
/* Whether the log lacks the line the database stored last (read only). */
bool textlog_behind(const struct volume *v, struct db *db);

#endif
