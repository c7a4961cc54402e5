#include "license/activation.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/buf.h"
#include "common/date.h"

void sub_ids_add(struct sub_ids *l, const char *id)
{
	l->ids = wd_xrealloc(l->ids, (l->n + 1) * sizeof *l->ids);
	l->ids[l->n++] = wd_xstrdup(id);
}

void sub_ids_free(struct sub_ids *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->ids[i]);
	free(l->ids);
	memset(l, 0, sizeof *l);
}

int activation_revoked_ids(struct db *db, struct sub_ids *out, struct wd_err *err)
{
	if (!db->h)
		return 0;
	sqlite3_stmt *st;
	int r = db_prepare(db, "SELECT key_id FROM revoked_keys ORDER BY key_id", &st, err);
	if (r)
		return r;
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW)
		sub_ids_add(out, (const char *)sqlite3_column_text(st, 0));
	if (s != SQLITE_DONE)
		r = db_fail(db, err, "cannot read the revoked subscription keys");
	sqlite3_finalize(st);
	return r;
}

int activation_last_seen(struct db *db, int *day, struct wd_err *err)
{
	*day = -1;
	if (!db->h)
		return 0;
	char *val;
	int r = db_meta_get(db, ACTIVATION_LAST_SEEN, &val, err);
	if (r || !val)
		return r;
	if (!wd_date_parse(val, day))
		r = wd_err_set(err, WD_EFAIL, "%s: meta %s is '%s', not a date as YYYY-MM-DD",
			       db->path, ACTIVATION_LAST_SEEN, val);
	free(val);
	return r;
}

int activation_note_date(struct db *db, int day, struct wd_err *err)
{
	int seen;
	int r = activation_last_seen(db, &seen, err);
	if (r || day <= seen)
		return r;
	char s[WD_DATE_LEN];
	wd_date_format(day, s);
	return db_meta_set(db, ACTIVATION_LAST_SEEN, s, err);
}

/* The current row's text and activation date, or NULLs. */
static int current_row(struct db *db, char **text, char **activated, struct wd_err *err)
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
		*text = wd_xstrdup((const char *)sqlite3_column_text(st, 0));
		*activated = wd_xstrdup((const char *)sqlite3_column_text(st, 1));
	} else if (s != SQLITE_DONE) {
		r = db_fail(db, err, "cannot read the activated subscription key");
	}
	sqlite3_finalize(st);
	return r;
}

int activation_load(struct db *db, const struct keyring *kr, struct activation *a,
		    struct wd_err *err)
{
	memset(a, 0, sizeof *a);
	int r = wd_today(&a->ctx.today, err);
	if (!r)
		r = activation_last_seen(db, &a->ctx.last_seen, err);
	if (!r)
		r = activation_revoked_ids(db, &a->revoked, err);
	if (!r)
		r = current_row(db, &a->text, &a->activated, err);
	if (!r && a->text) {
		r = sub_parse(a->text, strlen(a->text), kr, &a->sub, err);
		if (r)
			wd_err_prefix(err, "the subscription key activated on this volume no "
					   "longer checks out");
		a->have = !r;
	}
	a->ctx.sub = a->have ? &a->sub : NULL;
	a->ctx.revoked = (const char *const *)a->revoked.ids;
	a->ctx.nrevoked = a->revoked.n;
	return r;
}

void activation_add_revoked(struct activation *a, const char *const *ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sub_ids_add(&a->revoked, ids[i]);
	a->ctx.revoked = (const char *const *)a->revoked.ids;
	a->ctx.nrevoked = a->revoked.n;
}

void activation_saw_date(struct activation *a, int day)
{
	if (day > a->ctx.last_seen)
		a->ctx.last_seen = day;
}

void activation_free(struct activation *a)
{
	free(a->text);
	free(a->activated);
	sub_ids_free(&a->revoked);
	memset(a, 0, sizeof *a);
}

static int end_current(struct db *db, const char *day, const char *why, struct wd_err *err)
{
	sqlite3_stmt *st;
	int r = db_prepare(db, "UPDATE subscription_keys SET ended = ?, ended_why = ? "
			       "WHERE ended IS NULL", &st, err);
	if (r)
		return r;
	sqlite3_bind_text(st, 1, day, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, why, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		r = db_fail(db, err, "cannot end the activated subscription key");
	sqlite3_finalize(st);
	return r;
}

static int insert_key(struct db *db, const struct subscription *s, const char *day,
		      struct wd_err *err)
{
	char text[SUB_TEXT_LEN + 1];
	sub_format(s, text);
	sqlite3_stmt *st;
	int r = db_prepare(db, "INSERT INTO subscription_keys (key_id, key_text, activated) "
			       "VALUES (?, ?, ?)", &st, err);
	if (r)
		return r;
	sqlite3_bind_text(st, 1, s->id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, text, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, day, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		r = db_fail(db, err, "cannot store the subscription key");
	sqlite3_finalize(st);
	return r;
}

int activation_store(struct db *db, const struct subscription *s, int today,
		     struct wd_err *err)
{
	char day[WD_DATE_LEN];
	wd_date_format(today, day);
	/* The key is a credential: keep the database to its owner. A file system
	 * without modes (FAT, HPFS mounted on a host) refuses, and that is all
	 * it can do. */
	chmod(db->path, 0600);
	int r = db_begin(db, err);
	if (r)
		return r;
	if ((r = end_current(db, day, "replaced", err)) || (r = insert_key(db, s, day, err)) ||
	    (r = activation_note_date(db, today, err)) || (r = db_commit(db, err)))
		db_rollback(db);
	return r;
}

int activation_current_id(struct db *db, char id[SUB_ID_HEX], struct wd_err *err)
{
	id[0] = '\0';
	if (!db->h)
		return 0;
	sqlite3_stmt *st;
	int r = db_prepare(db, "SELECT key_id FROM subscription_keys WHERE ended IS NULL", &st,
			   err);
	if (r)
		return r;
	int s = sqlite3_step(st);
	if (s == SQLITE_ROW)
		snprintf(id, SUB_ID_HEX, "%s", (const char *)sqlite3_column_text(st, 0));
	else if (s != SQLITE_DONE)
		r = db_fail(db, err, "cannot read the activated subscription key");
	sqlite3_finalize(st);
	return r;
}

int activation_end(struct db *db, int today, char id[SUB_ID_HEX], struct wd_err *err)
{
	id[0] = '\0';
	if (!db->h)
		return 0;
	char day[WD_DATE_LEN];
	wd_date_format(today, day);
	int r = db_begin(db, err);
	if (r)
		return r;
	if ((r = activation_current_id(db, id, err)) ||
	    (r = end_current(db, day, "deactivated", err)) ||
	    (r = activation_note_date(db, today, err)) || (r = db_commit(db, err)))
		db_rollback(db);
	return r;
}

int subscription_gate(struct db *db, const struct keyring *kr, const char *const *revoked,
		      size_t nrevoked, int index_date, const char *entitlement, int released,
		      struct wd_err *err)
{
	struct activation a;
	int r = activation_load(db, kr, &a, err);
	if (!r) {
		activation_add_revoked(&a, revoked, nrevoked);
		activation_saw_date(&a, index_date);
		r = entitlement_check(&a.ctx, entitlement, released, err);
	}
	activation_free(&a);
	return r;
}
