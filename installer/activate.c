#include "installer/activate.h"

#include <string.h>

#include "common/date.h"

/* Refuses a key the volume's state rules out: a clock set back, or revoked. */
static int state_of(struct db *db, struct key_activation *ka, struct wd_err *err)
{
	struct sub_ids rev = {0};
	struct entitlement_ctx c = {.sub = &ka->sub, .today = ka->today};
	int r = activation_last_seen(db, &c.last_seen, err);
	if (!r)
		r = activation_revoked_ids(db, &rev, err);
	if (!r) {
		c.revoked = (const char *const *)rev.ids;
		c.nrevoked = rev.n;
		ka->st = entitlement_state(&c);
		r = entitlement_usable(&c, err);
		if (r)
			wd_err_prefix(err, "key %s not activated", ka->sub.id);
	}
	sub_ids_free(&rev);
	return r;
}

int activate_check(struct session *s, const char *text, size_t len, struct key_activation *ka,
		   struct wd_err *err)
{
	struct volume *v;
	const struct keyring *kr;
	struct db *db;
	memset(ka, 0, sizeof *ka);
	ka->st = SUB_NONE;
	int r = session_volume(s, &v, err);
	if (r)
		return r;
	if (!(r = session_keyring(s, &kr, err)) && !(r = sub_parse(text, len, kr, &ka->sub, err)) &&
	    !(r = wd_today(&ka->today, err)) &&
	    !(r = session_db(s, SESSION_DB_PLAIN, &db, NULL, err)) && !(r = state_of(db, ka, err)))
		r = activation_current_id(db, ka->old_id, err);
	ka->same = !r && !strcmp(ka->old_id, ka->sub.id);
	return r;
}

int activate_store(struct session *s, const struct key_activation *ka, struct wd_err *err)
{
	struct db *db;
	int r = session_db(s, SESSION_DB_PLAIN, &db, NULL, err);
	if (!r && !db->h)
		r = session_db(s, SESSION_DB_CREATE, &db, NULL, err);
	return r ? r : activation_store(db, &ka->sub, ka->today, err);
}

int deactivate_key(struct session *s, char id[SUB_ID_HEX], struct wd_err *err)
{
	struct volume *v;
	struct db *db;
	int today;
	id[0] = '\0';
	int r = session_volume(s, &v, err);
	if (r || (r = wd_today(&today, err)) || (r = session_db(s, SESSION_DB_PLAIN, &db, NULL, err)))
		return r;
	return s->o.dry_run ? activation_current_id(db, id, err) : activation_end(db, today, id, err);
}
