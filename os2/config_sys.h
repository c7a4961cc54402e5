/* CONFIG.SYS as a list of lines that keep their bytes (installer/textlines.h),
 * with each line read as a statement on demand. Line indexes start at 0;
 * messages add 1. An edit moves the indexes after it: find again after
 * inserting or deleting. */
#ifndef WD_CONFIG_SYS_H
#define WD_CONFIG_SYS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/buf.h"
#include "os2/textlines.h"

struct config_sys {
	struct textlines t;
};

/* One line read as a statement. Views point into the model's line and stay
 * valid until that line is edited. */
struct cs_stmt {
	struct wd_sv keyword; /* "DEVICE", "basedev", "SET" (spelling as written) */
	struct wd_sv value;   /* after '=', trimmed; for SET: "NAME=value" */
	struct wd_sv setvar;  /* SET only: the variable's name */
	bool loads;           /* DEVICE= BASEDEV= PSD= IFS= RUN= CALL= */
	/* For a statement that loads a file: "C:\IBMCOM\MACS\E1000.OS2 /X" is
	 * drive 'C', dir "\IBMCOM\MACS\", name "E1000.OS2", args "/X". */
	struct wd_sv path;    /* the whole file token */
	char drive;           /* upper case, or 0 */
	struct wd_sv dir;     /* with its trailing backslash, or empty */
	struct wd_sv name;
	struct wd_sv args;    /* the rest, trimmed */
};

void config_sys_parse(struct config_sys *cs, const char *p, size_t n);
void config_sys_free(struct config_sys *cs);
/* Appends the file's bytes to out: untouched, the bytes that were read. */
void config_sys_write(const struct config_sys *cs, struct wd_buf *out);
size_t config_sys_lines(const struct config_sys *cs);

/* Reads line i as a statement; false for blank, REM and lines without '='. */
bool config_sys_stmt(const struct config_sys *cs, size_t i, struct cs_stmt *st);
/* True when line i is "REM ..." (any case). */
bool config_sys_is_rem(const struct config_sys *cs, size_t i);

/* The first statement at or after line `from` whose keyword is keyword (any
 * case; NULL: any) and, when file is given, that loads a file of that name
 * (any case, any drive or folder: "E1000.OS2"). -1 when there is none. */
long config_sys_find(const struct config_sys *cs, size_t from, const char *keyword,
		     const char *file);

/* Edits (text: one line without its ending, e.g. "DEVICE=C:\IBMCOM\MACS\X.OS2").
 * 0 or -1 when the index is out of range or text holds a line break. */
int config_sys_replace(struct config_sys *cs, size_t i, const char *text);
int config_sys_insert_before(struct config_sys *cs, size_t i, const char *text);
int config_sys_insert_after(struct config_sys *cs, size_t i, const char *text);
/* Appends at the end (before a final Ctrl-Z). */
int config_sys_append(struct config_sys *cs, const char *text);
int config_sys_delete(struct config_sys *cs, size_t i);
/* Deletes every line i whose gone[i] is true (gone: one per line), in one
 * pass, as deleting them one by one from the last would; how many. */
size_t config_sys_delete_marked(struct config_sys *cs, const bool *gone);

/* Splits an OS/2 path token into drive, folder and file name (used for
 * statements, and by check for paths read elsewhere). */
void cs_split_path(struct wd_sv path, char *drive, struct wd_sv *dir, struct wd_sv *name);

#endif
