#include "installer/update.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/fetch_stored.h"
#include "catalog/hoststate.h"
#include "catalog/store.h"
#include "catalog/versions.h"
#include "common/buf.h"
#include "common/date.h"
#include "common/file.h"
#include "license/activation.h"

/* Beside the stored catalog: the HTTP validators of the indexes it holds,
 * so that an unchanged repository costs a 304 and nothing is rewritten. */
#define VALIDATORS_NAME "catalog.validators"

/* One update under way. */
struct upd {
	struct session *s;
	struct update_run *u;
	struct volume *v;
	struct db *db;
	const struct keyring *kr;
	int today;
	char *dir, *path, *vpath;
	struct fetch_validators vs;
	sqlite3 *store;
	bool all_light, any;
	const struct activation *a;
};

struct held {
	const char *host;
	const struct update_outcome *o;
};

int update_begin(struct session *s, struct update_run *u, struct wd_err *err)
{
	struct volume *v;
	struct db *db;
	const struct keyring *kr;
	memset(u, 0, sizeof *u);
	/* the transfer helper (libcurl) starts while the database opens and
	 * the keys load */
	fetch_preload();
	int r = session_volume(s, &v, err);
	if (!r)
		r = session_db(s, SESSION_DB_PLAIN, &db, NULL, err);
	if (!r)
		r = session_keyring(s, &kr, err);
	return r ? r : repolist_read(db, &u->l, err);
}

/* The rollback guard: at least the serial the stored catalog holds and the
 * one this host remembers for this signer and URL. */
static int serial_ok(void *ud, const char *url, const struct repo_index *idx,
		     struct wd_err *err)
{
	const struct held *h = ud;
	return repo_serial_guard(h->host, url, idx, h->o->have_old ? &h->o->old : NULL, err);
}

static void fetch_one(struct upd *d, const struct repo_conf *c, struct update_outcome *o)
{
	bool key = d->a && d->a->have;
	struct fetch_auth auth = {key ? d->a->sub.id : NULL, d->a ? d->a->text : NULL};
	/* asked "changed since?" only about an index held and not yet stale */
	struct repo_index_cond cond = {&d->vs, o->have_old && d->today <= o->old.expires, false};
	const char **urls = wd_xcalloc(c->nmirrors + 1, sizeof *urls);
	urls[0] = c->url;
	for (size_t i = 0; i < c->nmirrors; i++)
		urls[i + 1] = c->mirrors[i];
	struct held h = {session_host_state(d->s), o};
	if (c->subscription && !key)
		o->r = wd_err_set(&o->err, WD_ELICENSE, "%s is a subscription repository: "
				  "activate a subscription key first ('warpdrv activate KEY')", c->url);
	else if (c->subscription && !strncmp(c->url, "https://", 8) && /* http: refused below */
		 !repo_key_may_go(&d->a->sub, o->have_old ? &o->old : NULL, c->url))
		o->r = repo_key_refused(NULL, c->url, &o->err);
	else
		o->r = repo_fetch_index(d->s->o.net, c->subscription ? &auth : NULL, urls,
					c->nmirrors + 1, d->kr, d->today, serial_ok, &h, &cond,
					&o->fresh, &o->used, &o->err);
	o->have_fresh = !o->r;
	if (!o->r && cond.unchanged) {
		o->unchanged = true;
		o->fresh = o->old;
	}
	if (o->r)
		wd_err_prefix(&o->err, "repository %s", c->name);
	free(urls);
}

/* Where the stored catalog and its validators are; which stored indexes
 * the note beside them stands for (catalog/fetch_stored.h): the stored
 * catalog is opened only for one that is not. */
static int open_stored(struct upd *d, struct wd_err *err)
{
	const struct repo_list *l = &d->u->l;
	bool found, other = false;
	int r = volume_resolve(d->v, STORE_DIR, &d->dir, &found, err);
	d->vpath = d->dir ? wd_path_join(d->dir, VALIDATORS_NAME) : NULL;
	fetch_validators_read(&d->v->fs, d->vpath ? d->vpath : "", &d->vs);
	d->all_light = true;
	if (!r)
		d->path = wd_path_join(d->dir, STORE_NAME);
	for (size_t i = 0; !r && i < l->n; i++)
		d->all_light &= d->u->light[i] =
			fetch_stored_light(&d->v->fs, d->path, l->v[i].name, l->v[i].url, d->kr,
					   &d->vs, &d->u->o[i].old);
	if (!r && !d->all_light)
		r = store_open(&d->v->fs, d->path, &d->store, &other, err);
	if (!r && other)
		session_warn(d->s, "%s: a catalog of another warpdrv version: ignored; every index is "
		     "fetched again", d->path);
	return r;
}

/* A stored index read in full; one that no longer verifies is as none
 * (told), and fetched afresh. */
static int read_stored(struct upd *d, size_t i, struct wd_err *err)
{
	const struct repo_conf *c = &d->u->l.v[i];
	struct update_outcome *o = &d->u->o[i];
	int r = store_get(d->store, c->name, c->url, d->kr, &o->old, &o->have_old, err);
	if (r == -WD_ETRUST) {
		session_warn(d->s, "%s", err->msg);
		r = 0;
	}
	return r;
}

static int fetch_all(struct upd *d, struct wd_err *err)
{
	int r = session_activation(d->s, &d->a, err);
	for (size_t i = 0; !r && i < d->u->l.n; i++) {
		struct update_outcome *o = &d->u->o[i];
		o->have_old = d->u->light[i];
		if (!d->u->light[i] && (r = read_stored(d, i, err)))
			break;
		fetch_one(d, &d->u->l.v[i], o);
	}
	return r;
}

/* Something is to be written: the indexes only noted are read in full. */
static int read_noted(struct upd *d, struct wd_err *err)
{
	struct update_run *u = d->u;
	int r = 0;
	for (size_t i = 0; i < u->l.n; i++)
		d->any |= u->o[i].have_fresh && !u->o[i].unchanged;
	if (d->any && d->all_light)
		r = store_open(&d->v->fs, d->path, &d->store, NULL, err);
	for (size_t i = 0; !r && d->any && i < u->l.n; i++) {
		if (!u->light[i])
			continue;
		fetch_stored_light_free(&u->o[i].old);
		u->light[i] = false;
		r = read_stored(d, i, err); /* the note lied: as a stored index that fails */
		if (u->o[i].unchanged) {    /* the 304's index is the one held */
			u->o[i].have_fresh = u->o[i].have_old;
			u->o[i].fresh = u->o[i].old;
		}
	}
	return r;
}

/* Remembers the serials and revoked keys in the database and writes the new
 * catalog, as one step: the database change is rolled back if the catalog
 * cannot be written. */
static int commit(struct upd *d, struct wd_err *err)
{
	const struct repo_list *l = &d->u->l;
	struct update_outcome *o = d->u->o;
	struct catalog fresh;
	catalog_init(&fresh, NULL);
	struct store_entry *e = wd_xcalloc(l->n + 1, sizeof *e);
	size_t n = 0;
	for (size_t i = 0; i < l->n; i++) {
		const struct repo_conf *c = &l->v[i];
		if (o[i].have_fresh) {
			e[n++] = (struct store_entry){c->name, c->url,
						      o[i].used ? c->mirrors[o[i].used - 1] : c->url,
						      &o[i].fresh};
			struct repo_index copy = o[i].fresh; /* borrowed: given back below */
			catalog_add_index(&fresh, c->name, c->url, NULL, 0, false, &copy);
		} else if (o[i].have_old) {
			e[n++] = (struct store_entry){c->name, c->url, c->url, &o[i].old};
		}
	}
	int r = db_begin(d->db, err);
	if (!r && !(r = catalog_remember(d->db, &fresh, err)) &&
	    !(r = activation_note_today(d->db, err)) &&
	    !(r = store_write(d->db->fs, d->path, e, n, err)))
		r = db_commit(d->db, err);
	if (r)
		db_rollback(d->db);
	for (size_t i = 0; i < fresh.n; i++) /* the indexes belong to o */
		memset(&fresh.repos[i].idx, 0, sizeof fresh.repos[i].idx);
	catalog_free(&fresh);
	free(e);
	return r;
}

/* The host's memory, what a later volume's catalog is held to (every index
 * fetched and checked, unchanged ones too); then the new catalog with its
 * validators. */
static int write_all(struct upd *d, struct wd_err *err)
{
	const struct repo_list *l = &d->u->l;
	const struct update_outcome *o = d->u->o;
	int r = 0;
	for (size_t i = 0; !r && i < l->n; i++)
		if (o[i].have_fresh)
			r = host_seen_raise(session_host_state(d->s), o[i].fresh.signer, l->v[i].url,
					    o[i].fresh.serial, o[i].fresh.issued, err);
	if (r || !d->any || (r = fs_mkdirs(&d->v->fs, d->dir, err)) || (r = commit(d, err)))
		return r;
	for (size_t i = 0; i < l->n; i++)
		if (o[i].have_fresh || o[i].have_old)
			fetch_stored_remember(&d->vs, &d->v->fs, d->path, l->v[i].name, l->v[i].url,
					      o[i].have_fresh ? &o[i].fresh : &o[i].old);
	struct wd_err ignore; /* without the validators, the next update is a full one */
	fetch_validators_write(&d->v->fs, d->vpath, &d->vs, &ignore);
	return 0;
}

int update_fetch(struct session *s, struct update_run *u, struct wd_err *err)
{
	struct upd d = {.s = s, .u = u};
	u->o = wd_xcalloc(u->l.n + 1, sizeof *u->o);
	u->light = wd_xcalloc(u->l.n + 1, sizeof *u->light);
	int r = wd_today(&d.today, err);
	if (!r && !(r = session_volume(s, &d.v, err)) &&
	    !(r = session_db(s, SESSION_DB_PLAIN, &d.db, NULL, err)))
		r = session_keyring(s, &d.kr, err);
	if (!r)
		r = open_stored(&d, err);
	if (!r)
		r = fetch_all(&d, err);
	if (!r)
		r = read_noted(&d, err);
	db_handle_close(d.store);
	if (!r && !s->o.dry_run)
		r = write_all(&d, err);
	fetch_validators_free(&d.vs);
	free(d.vpath);
	free(d.dir);
	free(d.path);
	return r;
}

int update_failures(const struct update_run *u, struct wd_err *err)
{
	int worst = 0;
	struct wd_buf b = {0};
	for (size_t i = 0; i < u->l.n; i++) {
		if (!u->o[i].r)
			continue;
		if (u->o[i].err.code > worst)
			worst = u->o[i].err.code;
		wd_buf_addf(&b, "%s%s", b.len ? "\n" : "", u->o[i].err.msg);
	}
	if (worst)
		wd_err_set(err, worst, "%s\n(the previous catalog of each failed repository stays "
			   "in use)", wd_buf_cstr(&b));
	wd_buf_free(&b);
	return worst ? -worst : 0;
}

void update_end(struct update_run *u)
{
	for (size_t i = 0; u->o && i < u->l.n; i++) {
		if (u->light[i])
			fetch_stored_light_free(&u->o[i].old);
		else
			index_free(&u->o[i].old);
		if (!u->o[i].unchanged)
			index_free(&u->o[i].fresh);
	}
	free(u->o);
	free(u->light);
	repolist_free(&u->l);
	fetch_preload_end();
	memset(u, 0, sizeof *u);
}
