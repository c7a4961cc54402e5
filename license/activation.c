#include "license/activation.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/buf.h"
#include "common/date.h"
#include "state/subscriptions.h"

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
	return revoked_keys_list(db, &out->ids, &out->n, err);
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

int activation_note_today(struct db *db, struct wd_err *err)
{
	int today;
	int r = wd_today(&today, err);
	return r ? r : activation_note_date(db, today, err);
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
		r = subscriptions_current(db, &a->text, &a->activated, err);
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

int activation_store(struct db *db, const struct subscription *s, int today,
		     struct wd_err *err)
{
	char day[WD_DATE_LEN];
	wd_date_format(today, day);
	/* The key is a credential: keep the database to its owner. A file system
	 * without modes (FAT, HPFS mounted on a host) refuses, and that is all
	 * it can do. */
	struct wd_err ignore;
	db_chmod(db, 0600, &ignore);
	int r = db_begin(db, err);
	if (r)
		return r;
	struct wd_buf text = {0};
	sub_format_full(s, &text);
	if ((r = subscriptions_end_current(db, day, "replaced", err)) ||
	    (r = subscriptions_add(db, s->id, wd_buf_cstr(&text), day, err)) ||
	    (r = activation_note_date(db, today, err)) || (r = db_commit(db, err)))
		db_rollback(db);
	wd_buf_free(&text);
	return r;
}

int activation_current_id(struct db *db, char id[SUB_ID_HEX], struct wd_err *err)
{
	id[0] = '\0';
	char *cur = NULL;
	int r = subscriptions_current_id(db, &cur, err);
	if (!r && cur)
		snprintf(id, SUB_ID_HEX, "%s", cur);
	free(cur);
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
	    (r = subscriptions_end_current(db, day, "deactivated", err)) ||
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
