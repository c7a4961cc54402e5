#include "state/subscriptions.h"

#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

static char *col(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);
	return s ? wd_xstrdup(s) : NULL;
}

/* A statement bound to the given texts (NULL for SQL NULL), run to its end. */
static int run(struct db *db, const char *sql, const char *const *args, int nargs,
	       const char *what, struct wd_err *err)
{
	sqlite3_stmt *st;
	int r = db_prepare(db, sql, &st, err);
	if (r)
		return r;
	for (int i = 0; i < nargs; i++)
		sqlite3_bind_text(st, i + 1, args[i], -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		r = db_fail(db, err, what);
	sqlite3_finalize(st);
	return r;
}

int subscriptions_current(struct db *db, char **text, char **activated, struct wd_err *err)
{
	*text = *activated = NULL;
	if (!db->h)
		return 0;
	sqlite3_stmt *st;
	int r = db_prepare(db, "SELECT key_text, activated FROM subscription_keys "
			       "WHERE ended IS NULL", &st, err);
	if (r)
		return r;
	int s = sqlite3_step(st);
	if (s == SQLITE_ROW) {
		*text = col(st, 0);
		*activated = col(st, 1);
	} else if (s != SQLITE_DONE) {
		r = db_fail(db, err, "cannot read the activated subscription key");
	}
	sqlite3_finalize(st);
	return r;
}

int subscriptions_current_id(struct db *db, char **id, struct wd_err *err)
{
	*id = NULL;
	if (!db->h)
		return 0;
	sqlite3_stmt *st;
	int r = db_prepare(db, "SELECT key_id FROM subscription_keys WHERE ended IS NULL", &st,
			   err);
	if (r)
		return r;
	int s = sqlite3_step(st);
	if (s == SQLITE_ROW)
		*id = col(st, 0);
	else if (s != SQLITE_DONE)
		r = db_fail(db, err, "cannot read the activated subscription key");
	sqlite3_finalize(st);
	return r;
}

int subscriptions_end_current(struct db *db, const char *day, const char *why,
			      struct wd_err *err)
{
	const char *args[] = {day, why};
	return run(db, "UPDATE subscription_keys SET ended = ?, ended_why = ? WHERE ended IS NULL",
		   args, 2, "cannot end the activated subscription key", err);
}

int subscriptions_add(struct db *db, const char *id, const char *text, const char *day,
		      struct wd_err *err)
{
	const char *args[] = {id, text, day};
	return run(db, "INSERT INTO subscription_keys (key_id, key_text, activated) "
		       "VALUES (?, ?, ?)", args, 3, "cannot store the subscription key", err);
}

int subscriptions_all(struct db *db, struct subscription_row **out, size_t *n,
		      struct wd_err *err)
{
	*out = NULL;
	*n = 0;
	if (!db->h)
		return 0;
	sqlite3_stmt *st;
	int r = db_prepare(db, "SELECT key_id, activated, ended, ended_why FROM subscription_keys "
			       "ORDER BY seq", &st, err);
	if (r)
		return r;
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		*out = wd_xrealloc(*out, (*n + 1) * sizeof **out);
		(*out)[(*n)++] = (struct subscription_row){
			.key_id = col(st, 0),
			.activated = col(st, 1),
			.ended = col(st, 2),
			.ended_why = col(st, 3),
		};
	}
	if (s != SQLITE_DONE)
		r = db_fail(db, err, "cannot read the subscription keys");
	sqlite3_finalize(st);
	return r;
}

void subscriptions_all_free(struct subscription_row *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(r[i].key_id);
		free(r[i].activated);
		free(r[i].ended);
		free(r[i].ended_why);
	}
	free(r);
}

int revoked_keys_list(struct db *db, char ***ids, size_t *n, struct wd_err *err)
{
	if (!db->h)
		return 0;
	sqlite3_stmt *st;
	int r = db_prepare(db, "SELECT key_id FROM revoked_keys ORDER BY key_id", &st, err);
	if (r)
		return r;
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		char *id = col(st, 0);
		if (!id)
			continue;
		*ids = wd_xrealloc(*ids, (*n + 1) * sizeof **ids);
		(*ids)[(*n)++] = id;
	}
	if (s != SQLITE_DONE)
		r = db_fail(db, err, "cannot read the revoked subscription keys");
	sqlite3_finalize(st);
	return r;
}

int revoked_keys_add(struct db *db, const char *id, const char *source, struct wd_err *err)
{
	const char *args[] = {id, source};
	return run(db, "INSERT OR IGNORE INTO revoked_keys (key_id, source) VALUES (?, ?)", args, 2,
		   "cannot record a revoked key", err);
}
