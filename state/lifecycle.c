#include "state/lifecycle.h"

#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

int installed_manifest(struct db *db, const char *name, char **text, size_t *len,
		       struct wd_err *err)
{
	*text = NULL;
	*len = 0;
	if (!db || !db->h)
		return 0;
	sqlite3_stmt *st;
	int r = db_prepare(db, "SELECT manifest FROM package WHERE name = ?", &st, err);
	if (r)
		return r;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	int s = sqlite3_step(st);
	if (s == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		*len = (size_t)sqlite3_column_bytes(st, 0);
		*text = wd_xstrndup((const char *)sqlite3_column_text(st, 0), *len);
	} else if (s != SQLITE_ROW && s != SQLITE_DONE) {
		r = db_fail(db, err, "cannot read the installed packages");
	}
	sqlite3_finalize(st);
	return r;
}

static char *col(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);
	return wd_xstrdup(s ? s : "");
}

int generation_packages(struct db *db, long from, struct gen_pkg **out, size_t *n,
			struct wd_err *err)
{
	*out = NULL;
	*n = 0;
	if (!db || !db->h)
		return 0;
	sqlite3_stmt *st;
	int r = db_prepare(db, "SELECT n, name, version, action FROM generation_package "
			       "WHERE n >= ? ORDER BY n, name", &st, err);
	if (r)
		return r;
	sqlite3_bind_int64(st, 1, from);
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		*out = wd_xrealloc(*out, (*n + 1) * sizeof **out);
		struct gen_pkg *p = &(*out)[(*n)++];
		p->n = (long)sqlite3_column_int64(st, 0);
		p->name = col(st, 1);
		p->version = col(st, 2);
		p->action = col(st, 3);
	}
	if (s != SQLITE_DONE)
		r = db_fail(db, err, "cannot read the packages of the generations");
	sqlite3_finalize(st);
	if (r) {
		generation_packages_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return r;
}

void generation_packages_free(struct gen_pkg *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(p[i].name);
		free(p[i].version);
		free(p[i].action);
	}
	free(p);
}
