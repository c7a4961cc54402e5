#include "state/generations.h"

#include <stdlib.h>

#include "common/buf.h"

int generation_next(struct db *db, long *n, struct wd_err *err)
{
	*n = 1;
	if (!db || !db->h)
		return 0;
	sqlite3_stmt *st;
	int r = db_prepare(db, "SELECT coalesce(max(n), 0) + 1 FROM generation", &st, err);
	if (r)
		return r;
	if (sqlite3_step(st) == SQLITE_ROW)
		*n = sqlite3_column_int64(st, 0);
	else
		r = db_fail(db, err, "cannot read the generations");
	sqlite3_finalize(st);
	return r;
}

static char *col(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);
	return wd_xstrdup(s ? s : "");
}

int generation_list(struct db *db, struct generation **out, size_t *n, struct wd_err *err)
{
	*out = NULL;
	*n = 0;
	if (!db || !db->h)
		return 0;
	sqlite3_stmt *st;
	int r = db_prepare(db, "SELECT n, at, command, summary FROM generation ORDER BY n", &st,
			   err);
	if (r)
		return r;
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		*out = wd_xrealloc(*out, (*n + 1) * sizeof **out);
		struct generation *g = &(*out)[(*n)++];
		g->n = sqlite3_column_int64(st, 0);
		g->at = col(st, 1);
		g->command = col(st, 2);
		g->summary = col(st, 3);
	}
	if (s != SQLITE_DONE)
		r = db_fail(db, err, "cannot read the generations");
	sqlite3_finalize(st);
	return r;
}

void generation_list_free(struct generation *g, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(g[i].at);
		free(g[i].command);
		free(g[i].summary);
	}
	free(g);
}
