#include "state/history.h"

#include <stdlib.h>

#include "common/buf.h"

static char *col(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);
	return wd_xstrdup(s ? s : "");
}

static char *col_null(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);
	return s ? wd_xstrdup(s) : NULL;
}

int history_list(struct db *db, struct history_row **out, size_t *n, struct wd_err *err)
{
	*out = NULL;
	*n = 0;
	if (!db || !db->h)
		return 0;
	sqlite3_stmt *st;
	/* a database opened without its schema upgraded (before step 11) has
	 * rows without what step 11 added: NULL for them */
	int r = 0;
	if (sqlite3_prepare_v2(db->h, "SELECT id, at, action, package, version, from_version, "
			       "command, packages FROM history ORDER BY id", -1, &st, NULL) != SQLITE_OK)
		r = db_prepare(db, "SELECT id, at, action, package, version, NULL, NULL, NULL FROM "
			       "history ORDER BY id", &st, err);
	if (r)
		return r;
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		*out = wd_xrealloc(*out, (*n + 1) * sizeof **out);
		(*out)[(*n)++] = (struct history_row){
			.id = sqlite3_column_int64(st, 0),
			.at = col(st, 1),
			.action = col(st, 2),
			.package = col(st, 3),
			.version = col(st, 4),
			.from_version = col_null(st, 5),
			.command = col_null(st, 6),
			.packages = col_null(st, 7),
		};
	}
	if (s != SQLITE_DONE)
		r = db_fail(db, err, "cannot read the history");
	sqlite3_finalize(st);
	return r;
}

void history_list_free(struct history_row *h, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(h[i].at);
		free(h[i].action);
		free(h[i].package);
		free(h[i].version);
		free(h[i].from_version);
		free(h[i].command);
		free(h[i].packages);
	}
	free(h);
}
