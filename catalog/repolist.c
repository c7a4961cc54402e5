#include "catalog/repolist.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/date.h"

bool repo_valid_name(const char *s)
{
	size_t n = strlen(s);
	if (!n || n > 32 || !isalnum((unsigned char)s[0]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!islower((unsigned char)s[i]) && !isdigit((unsigned char)s[i]) &&
		    !strchr("._-", s[i]))
			return false;
	return true;
}

static char *col(sqlite3_stmt *st, int i)
{
	return wd_xstrdup((const char *)sqlite3_column_text(st, i));
}

static int read_mirrors(struct db *db, struct repo_conf *c, struct wd_err *err)
{
	sqlite3_stmt *st;
	int r = db_prepare(db, "SELECT url FROM repository_mirror WHERE repository = ? "
			       "ORDER BY seq", &st, err);
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

int repolist_read(struct db *db, struct repo_list *l, struct wd_err *err)
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
		repolist_free(l);
	return r;
}

static int step_done(struct db *db, sqlite3_stmt *st, struct wd_err *err)
{
	int s = sqlite3_step(st);
	sqlite3_reset(st);
	return s == SQLITE_DONE ? 0 : db_fail(db, err, "cannot store the repository");
}

static int insert(struct db *db, const struct repo_conf *c, int today, struct wd_err *err)
{
	char day[WD_DATE_LEN];
	wd_date_format(today, day);
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

int repolist_add(struct db *db, const struct repo_conf *c, int today, struct wd_err *err)
{
	struct repo_list l;
	int r = repolist_read(db, &l, err);
	if (r)
		return r;
	bool taken = repolist_find(&l, c->name) != NULL;
	repolist_free(&l);
	if (taken)
		return wd_err_set(err, WD_EUSAGE, "a repository named '%s' exists already "
				  "('warpdrv repo remove %s' first)", c->name, c->name);
	if ((r = db_begin(db, err)))
		return r;
	if ((r = insert(db, c, today, err)) || (r = db_commit(db, err)))
		db_rollback(db);
	return r;
}

int repolist_remove(struct db *db, const char *name, bool *found, struct wd_err *err)
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

const struct repo_conf *repolist_find(const struct repo_list *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].name, name))
			return &l->v[i];
	return NULL;
}

void repolist_free(struct repo_list *l)
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
