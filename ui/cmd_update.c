/* warpdrv update: fetch every remote repository's signed index (through its
 * mirrors in order), refuse an older one (rollback) or an expired one
 * (freeze), then replace the stored catalog in one rename. A repository that
 * fails keeps its previous catalog; the command names it and why. */
#include <stdlib.h>
#include <string.h>

#include "catalog/fetch_stored.h"
#include "catalog/hoststate.h"
#include "catalog/repolist.h"
#include "catalog/store.h"
#include "common/date.h"
#include "common/file.h"
#include "license/activation.h"
#include "ui/commands.h"
#include "ui/pkgutil.h"
#include "ui/progress.h"

/* Beside the stored catalog: the HTTP validators of the indexes it holds,
 * so that an unchanged repository costs a 304 and nothing is rewritten. */
#define VALIDATORS_NAME "catalog.validators"

struct outcome {
	struct repo_index old, fresh;
	bool have_old, have_fresh;
	bool unchanged; /* 304: fresh is old (borrowed), nothing to write */
	size_t used; /* which URL gave the fresh index */
	struct wd_err err;
	int r;
};

struct held {
	const char *host;
	const struct outcome *o;
};

/* The rollback guard: at least the serial the stored catalog holds and the
 * one this host remembers for this signer and URL. */
static int serial_ok(void *ud, const char *url, const struct repo_index *idx,
		     struct wd_err *err)
{
	const struct held *h = ud;
	return repo_serial_guard(h->host, url, idx, h->o->have_old ? &h->o->old : NULL, err);
}

static int fetch_one(struct wd_ctx *ctx, struct db *db, const struct keyring *kr, int today,
		     const struct repo_conf *c, const struct fetch_auth *auth,
		     const struct subscription *key, struct fetch_validators *vs,
		     struct outcome *o)
{
	/* asked "changed since?" only about an index held and not yet stale */
	struct repo_index_cond cond = {vs, o->have_old && today <= o->old.expires, false};
	const char **urls = wd_xcalloc(c->nmirrors + 1, sizeof *urls);
	urls[0] = c->url;
	for (size_t i = 0; i < c->nmirrors; i++)
		urls[i + 1] = c->mirrors[i];
	(void)db;
	struct held h = {session_host_state(ctx->s), o};
	if (c->subscription && !auth)
		o->r = wd_err_set(&o->err, WD_ELICENSE, "%s is a subscription repository: "
				  "activate a subscription key first ('warpdrv activate KEY')", c->url);
	else if (c->subscription && !strncmp(c->url, "https://", 8) && /* http: refused below */
		 !repo_key_may_go(key, o->have_old ? &o->old : NULL, c->url))
		o->r = repo_key_refused(NULL, c->url, &o->err);
	else
		o->r = repo_fetch_index(ui_net(ctx), c->subscription ? auth : NULL, urls,
					c->nmirrors + 1, kr, today, serial_ok, &h, &cond, &o->fresh,
					&o->used, &o->err);
	o->have_fresh = !o->r;
	if (!o->r && cond.unchanged) {
		o->unchanged = true;
		o->fresh = o->old;
	}
	if (o->r)
		wd_err_prefix(&o->err, "repository %s", c->name);
	free(urls);
	return o->r;
}

/* Remembers the serials and revoked keys in the database and writes the new
 * catalog, as one step: the database change is rolled back if the catalog
 * cannot be written. */
static int commit(struct db *db, const struct repo_list *l, struct outcome *o,
		  const char *store_path, struct wd_err *err)
{
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
	int r = db_begin(db, err);
	if (!r && !(r = catalog_remember(db, &fresh, err)) &&
	    !(r = activation_note_today(db, err)) && !(r = store_write(db->fs, store_path, e, n, err)))
		r = db_commit(db, err);
	if (r)
		db_rollback(db);
	for (size_t i = 0; i < fresh.n; i++) /* the indexes belong to o */
		memset(&fresh.repos[i].idx, 0, sizeof fresh.repos[i].idx);
	catalog_free(&fresh);
	free(e);
	return r;
}

static void report(struct wd_ctx *ctx, const struct repo_list *l, const struct outcome *o)
{
	if (ctx->json) {
		json_obj_begin(&ctx->j, NULL);
		json_bool(&ctx->j, "dry_run", ctx->dry_run);
		json_arr_begin(&ctx->j, "repositories");
	}
	for (size_t i = 0; i < l->n; i++) {
		const struct repo_conf *c = &l->v[i];
		const struct outcome *x = &o[i];
		const char *from = x->used ? c->mirrors[x->used - 1] : c->url;
		bool same = x->have_old && x->have_fresh && x->old.serial == x->fresh.serial;
		const char *status = !x->have_fresh ? "failed" : same ? "current" : "updated";
		if (ctx->json) {
			json_obj_begin(&ctx->j, NULL);
			json_str(&ctx->j, "name", c->name);
			json_str(&ctx->j, "status", status);
			if (x->have_fresh) {
				json_str(&ctx->j, "source", from);
				json_int(&ctx->j, "serial", (long long)x->fresh.serial);
				json_int(&ctx->j, "package_count", (long long)x->fresh.npkgs);
				json_int(&ctx->j, "revoked_count", (long long)x->fresh.nrevoked);
			} else {
				/* the shape of the document's own "error" */
				json_obj_begin(&ctx->j, "error");
				json_int(&ctx->j, "exit_code", x->err.code);
				json_str(&ctx->j, "message", x->err.msg);
				json_obj_end(&ctx->j);
			}
			json_obj_end(&ctx->j);
		} else if (x->have_fresh) {
			ui_say(ctx, "%s: %s, serial %llu, %zu packages, %zu revoked keys (from %s)\n",
			       ui_esc(c->name), same ? "up to date" : "updated",
			       (unsigned long long)x->fresh.serial, x->fresh.npkgs, x->fresh.nrevoked,
			       ui_esc(from));
		}
	}
	if (ctx->json) {
		json_arr_end(&ctx->j);
		json_obj_end(&ctx->j);
		json_finish(&ctx->j);
	}
}

/* The failures as one error: the gravest code, every repository named. */
static int failures(const struct repo_list *l, const struct outcome *o, struct wd_err *err)
{
	int worst = 0;
	struct wd_buf b = {0};
	for (size_t i = 0; i < l->n; i++) {
		if (!o[i].r)
			continue;
		if (o[i].err.code > worst)
			worst = o[i].err.code;
		wd_buf_addf(&b, "%s%s", b.len ? "\n" : "", o[i].err.msg);
	}
	if (worst)
		wd_err_set(err, worst, "%s\n(the previous catalog of each failed repository stays "
			   "in use)", wd_buf_cstr(&b));
	wd_buf_free(&b);
	return worst ? -worst : 0;
}

static int update(struct wd_ctx *ctx, struct volume *v, struct db *db, const struct keyring *kr,
		  const struct repo_list *l, struct wd_err *err)
{
	int today, r = wd_today(&today, err);
	char *dir = NULL, *path = NULL;
	bool found, other = false;
	sqlite3 *store = NULL;
	const struct activation *a = NULL;
	struct outcome *o = wd_xcalloc(l->n + 1, sizeof *o);
	if (!r)
		r = volume_resolve(v, STORE_DIR, &dir, &found, err);
	struct fetch_validators vs;
	char *vpath = dir ? wd_path_join(dir, VALIDATORS_NAME) : NULL;
	fetch_validators_read(&v->fs, vpath ? vpath : "", &vs);
	/* an index noted as stored is not read again unless it is to be
	 * rewritten (catalog/fetch_stored.h): the stored catalog is opened
	 * only for one that is not */
	bool *light = wd_xcalloc(l->n + 1, sizeof *light), all_light = true;
	if (!r)
		path = wd_path_join(dir, STORE_NAME);
	for (size_t i = 0; !r && i < l->n; i++)
		all_light &= light[i] = fetch_stored_light(&v->fs, path, l->v[i].name, l->v[i].url,
							   kr, &vs, &o[i].old);
	if (!r && !all_light)
		r = store_open(&v->fs, path, &store, &other, err);
	if (!r && other)
		ui_warn(ctx, "%s: a catalog of another warpdrv version: ignored; every index is "
			"fetched again\n", path);
	if (!r)
		r = session_activation(ctx->s, &a, err);
	struct fetch_auth auth = {a && a->have ? a->sub.id : NULL, a ? a->text : NULL};
	for (size_t i = 0; !r && i < l->n; i++) {
		/* a stored index that no longer verifies is fetched afresh */
		o[i].have_old = light[i];
		r = light[i] ? 0 : store_get(store, l->v[i].name, l->v[i].url, kr, &o[i].old,
					      &o[i].have_old, err);
		if (r == -WD_ETRUST) {
			ui_warn(ctx, "%s\n", err->msg);
			r = 0;
		}
		if (r)
			break;
		fetch_one(ctx, db, kr, today, &l->v[i], a && a->have ? &auth : NULL,
			  a && a->have ? &a->sub : NULL, &vs, &o[i]);
	}
	bool any = false;
	for (size_t i = 0; i < l->n; i++)
		any |= o[i].have_fresh && !o[i].unchanged;
	if (!r && any && all_light)
		r = store_open(&v->fs, path, &store, NULL, err);
	for (size_t i = 0; !r && any && i < l->n; i++)
		if (light[i]) { /* to be written again: read in full */
			fetch_stored_light_free(&o[i].old);
			light[i] = false;
			r = store_get(store, l->v[i].name, l->v[i].url, kr, &o[i].old, &o[i].have_old, err);
			if (r == -WD_ETRUST) { /* the note lied: as a stored index that fails */
				ui_warn(ctx, "%s\n", err->msg);
				r = 0;
			}
			if (o[i].unchanged) { /* the 304's index is the one held */
				o[i].have_fresh = o[i].have_old;
				o[i].fresh = o[i].old;
			}
		}
	db_handle_close(store);
	/* the host's memory, what a later volume's catalog is held to: every
	 * index fetched and checked, unchanged ones too */
	for (size_t i = 0; !r && !ctx->dry_run && i < l->n; i++)
		if (o[i].have_fresh)
			r = host_seen_raise(session_host_state(ctx->s), o[i].fresh.signer,
					    l->v[i].url, o[i].fresh.serial, o[i].fresh.issued, err);
	struct wd_err ignore; /* without the validators, the next update is a full one */
	if (!r && any && !ctx->dry_run && !(r = fs_mkdirs(&v->fs, dir, err)) &&
	    !(r = commit(db, l, o, path, err))) {
		for (size_t i = 0; i < l->n; i++)
			if (o[i].have_fresh || o[i].have_old)
				fetch_stored_remember(&vs, &v->fs, path, l->v[i].name,
						      l->v[i].url,
						      o[i].have_fresh ? &o[i].fresh : &o[i].old);
		fetch_validators_write(&v->fs, vpath, &vs, &ignore);
	}
	fetch_validators_free(&vs);
	free(vpath);
	if (!r) {
		report(ctx, l, o);
		r = failures(l, o, err);
	}
	for (size_t i = 0; i < l->n; i++) {
		if (light[i])
			fetch_stored_light_free(&o[i].old);
		else
			index_free(&o[i].old);
		if (!o[i].unchanged)
			index_free(&o[i].fresh);
	}
	free(o);
	free(light);
	free(dir);
	free(path);
	return r;
}

int cmd_update(struct wd_ctx *ctx, int argc, char **argv)
{
	if (argc)
		return ui_usage(ctx, "update: unexpected argument '%s'", argv[0]);
	struct wd_err err = {0};
	struct volume *v;
	struct db *db;
	const struct keyring *kr;
	struct repo_list l = {0};
	fetch_preload(); /* libcurl loads while the database opens and the keys load */
	int r = session_volume(ctx->s, &v, &err);
	if (!r)
		r = session_db(ctx->s, SESSION_DB_PLAIN, &db, NULL, &err);
	if (!r)
		r = session_keyring(ctx->s, &kr, &err);
	if (!r)
		r = repolist_read(db, &l, &err);
	if (!r && !l.n) {
		ui_say(ctx, "No remote repositories ('warpdrv repo add NAME URL' adds one); the "
			    "bundled repository is always read directly.\n");
		if (ctx->json) {
			json_obj_begin(&ctx->j, NULL);
			json_arr_begin(&ctx->j, "repositories");
			json_arr_end(&ctx->j);
			json_obj_end(&ctx->j);
			json_finish(&ctx->j);
		}
	} else if (!r) {
		r = update(ctx, v, db, kr, &l, &err);
	}
	repolist_free(&l);
	fetch_preload_end();
	return r ? ui_fail(ctx, r, &err) : 0;
}
