/* warpdrv verify: every installed file's size and SHA-256 against the
 * database, and the database's own integrity, read through the session
 * under the volume's shared lock (a transaction under way ends first, or
 * the volume is busy): never a difference that was only half a change. */
#ifndef WD_VERIFY_H
#define WD_VERIFY_H

#include <stddef.h>

#include "session/session.h"

struct verify_problem {
	char *path;      /* the OS/2 path */
	char *package;   /* the package that installed it */
	const char *why; /* "missing", "size differs", "content differs" */
};

struct verify_report {
	struct verify_problem *p; /* the files that differ, in the database's order */
	size_t n;
	int checked;              /* files checked */
};

/* The files of pkg (NULL: of every package). A file that differs is no
 * failure of the check itself: the report is whole and the return value
 * -WD_ETRUST, err's kind WD_K_FILES_DIFFER. Any other error leaves the
 * report empty. */
int verify_files(struct session *s, const char *pkg, struct verify_report *rep,
		 struct wd_err *err);
void verify_report_free(struct verify_report *rep);

#endif
