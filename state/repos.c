#include "state/repos.h"

#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

#define WD_STR_(x) #x
#define WD_STR(x) WD_STR_(x)

static char *col(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);
	return wd_xstrdup(s ? s : "");
}

static int read_mirrors(struct db *db, struct repo_conf *c, struct wd_err *err)
{
	sqlite3_stmt *st;
	int r = db_prepare(db, "SELECT url FROM repository_mirror WHERE repository = ? "
			       "ORDER BY seq LIMIT " WD_STR(REPOS_MAX_MIRRORS), &st, err);
	if (r)
		return r;
	sqlite3_bind_text(st, 1, c->name, -1, SQLITE_STATIC);
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		c->mirrors = wd_xrealloc(c->mirrors, (c->nmirrors + 1) * sizeof *c->mirrors);
		c->mirrors[c->nmirrors++] = col(st, 0);
	}
	if (s != SQLITE_DONE)
		r = db_fail(db, err, "cannot read the repository mirrors");
	sqlite3_finalize(st);
	return r;
}

int repos_read(struct db *db, struct repo_list *l, struct wd_err *err)
{
	memset(l, 0, sizeof *l);
	if (!db->h)
		return 0;
	sqlite3_stmt *st;
	int r = db_prepare(db, "SELECT name, url, subscription FROM repository ORDER BY seq",
			   &st, err);
	if (r)
		return r;
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		l->v = wd_xrealloc(l->v, (l->n + 1) * sizeof *l->v);
		struct repo_conf *c = &l->v[l->n++];
		memset(c, 0, sizeof *c);
		c->name = col(st, 0);
		c->url = col(st, 1);
		c->subscription = sqlite3_column_int(st, 2) != 0;
	}
	if (s != SQLITE_DONE)
		r = db_fail(db, err, "cannot read the repositories");
	sqlite3_finalize(st);
	for (size_t i = 0; !r && i < l->n; i++)
		r = read_mirrors(db, &l->v[i], err);
	if (r)
		repos_free(l);
	return r;
}

static int step_done(struct db *db, sqlite3_stmt *st, struct wd_err *err)
{
	int s = sqlite3_step(st);
	sqlite3_reset(st);
	return s == SQLITE_DONE ? 0 : db_fail(db, err, "cannot store the repository");
}

int repos_insert(struct db *db, const struct repo_conf *c, const char *day, struct wd_err *err)
{
	sqlite3_stmt *st;
	int r = db_prepare(db, "INSERT INTO repository (name, url, subscription, added, seq) "
			       "VALUES (?, ?, ?, ?, (SELECT coalesce(max(seq), 0) + 1 FROM repository))",
			   &st, err);
	if (r)
		return r;
	sqlite3_bind_text(st, 1, c->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, c->url, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 3, c->subscription);
	sqlite3_bind_text(st, 4, day, -1, SQLITE_STATIC);
	r = step_done(db, st, err);
	sqlite3_finalize(st);
	if (r || (r = db_prepare(db, "INSERT INTO repository_mirror (repository, seq, url) "
				     "VALUES (?, ?, ?)", &st, err)))
		return r;
	for (size_t i = 0; !r && i < c->nmirrors; i++) {
		sqlite3_bind_text(st, 1, c->name, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 2, (int)i + 1);
		sqlite3_bind_text(st, 3, c->mirrors[i], -1, SQLITE_STATIC);
		r = step_done(db, st, err);
	}
	sqlite3_finalize(st);
	return r;
}

int repos_delete(struct db *db, const char *name, bool *found, struct wd_err *err)
{
	sqlite3_stmt *st;
	int r = db_prepare(db, "DELETE FROM repository WHERE name = ?", &st, err);
	if (r)
		return r;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		r = db_fail(db, err, "cannot remove the repository");
	*found = !r && sqlite3_changes(db->h) > 0;
	sqlite3_finalize(st);
	return r;
}

void repos_free(struct repo_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].name);
		free(l->v[i].url);
		for (size_t k = 0; k < l->v[i].nmirrors; k++)
			free(l->v[i].mirrors[k]);
		free(l->v[i].mirrors);
	}
	free(l->v);
	memset(l, 0, sizeof *l);
}
