#include "ui/pkgutil.h"

#include "os2/boot_drive.h"

#include <stdlib.h>
#include <string.h>

#include "common/date.h"
#include "common/file.h"
#include "catalog/repolist.h"
#include "catalog/store.h"
#include "installer/txn.h"
#include "license/activation.h"
#include "ui/progress.h"

int pkg_keyring(struct wd_ctx *ctx, const struct volume *v, struct keyring *kr,
		struct wd_err *err)
{
	memset(kr, 0, sizeof *kr);
	char *bundled = ui_data_dir(ctx, "keys");
	int r = bundled ? keyring_add_dir(kr, bundled, err) : 0;
	free(bundled);
	if (!r && ctx->keys) {
		if (!wd_is_dir(ctx->keys))
			r = wd_err_set(err, WD_EUSAGE, "--keys %s: no such folder", ctx->keys);
		else
			r = keyring_add_dir(kr, ctx->keys, err);
	}
	if (!r && v) {
		char *dir = NULL;
		bool found;
		r = volume_resolve(v, WD_STATE_DIR "/keys", &dir, &found, err);
		if (!r && found)
			r = keyring_add_dir(kr, dir, err);
		free(dir);
	}
	if (r)
		keyring_free(kr);
	return r;
}

/* The credentials of subscription repositories: the activated key. With no
 * key (or one that no longer checks out) none are set, and a download from
 * such a repository says to activate one. */
static void stored_auth(struct db *db, const struct keyring *kr, struct catalog *cat)
{
	struct activation a;
	struct wd_err ignore;
	if (!activation_load(db, kr, &a, &ignore) && a.have)
		catalog_set_auth(cat, a.sub.id, a.text);
	activation_free(&a);
}

static void add_stored(struct wd_ctx *ctx, sqlite3 *store, const struct repo_conf *rc,
		       int today, struct catalog *cat, struct wd_err *err, int *r)
{
	struct repo_index idx;
	bool found;
	if ((*r = store_get(store, rc->name, rc->url, &idx, &found, err)))
		return;
	if (!found) {
		ui_warn(ctx, "repository %s has no catalog yet: run 'warpdrv update'\n", rc->name);
		return;
	}
	if (today > idx.expires) {
		char d[WD_DATE_LEN];
		wd_date_format(idx.expires, d);
		ui_warn(ctx, "repository %s: its catalog expired on %s; run 'warpdrv update'\n",
			rc->name, d);
	}
	catalog_add_index(cat, rc->name, rc->url, rc->mirrors, rc->nmirrors, rc->subscription,
			  &idx);
}

/* The remote repositories of the volume, from the catalog `update` stored
 * (no network). Writes nothing. */
static int add_stored_all(struct wd_ctx *ctx, const struct keyring *kr, int today,
			  struct catalog *cat, struct wd_err *err)
{
	struct volume v = {0};
	struct db db = {0};
	struct repo_list l = {0};
	sqlite3 *store = NULL;
	char *path = NULL;
	bool have, found;
	int r = volume_open(&v, ctx->root, err);
	if (!r)
		r = db_open(&db, &v, false, &have, err);
	if (!r)
		r = repolist_read(&db, &l, err);
	if (!r && l.n)
		r = volume_resolve(&v, STORE_DIR "/" STORE_NAME, &path, &found, err);
	if (!r && l.n)
		r = store_open(path, &store, err);
	for (size_t i = 0; !r && i < l.n; i++) {
		add_stored(ctx, store, &l.v[i], today, cat, err, &r);
		if (l.v[i].subscription && !cat->auth.user && db.h)
			stored_auth(&db, kr, cat);
	}
	db_handle_close(store);
	free(path);
	repolist_free(&l);
	db_close(&db);
	volume_close(&v);
	return r;
}

int pkg_catalog(struct wd_ctx *ctx, const struct keyring *kr, struct catalog *cat,
		struct wd_err *err)
{
	catalog_init(cat, ui_net(ctx));
	int today;
	int r = wd_today(&today, err);
	for (int i = 0; !r && i < ctx->nrepos; i++) {
		char *u = repo_url(ctx->repos[i]);
		r = catalog_add_url(cat, u, kr, today, err);
		free(u);
	}
	if (!r && ctx->root)
		r = add_stored_all(ctx, kr, today, cat, err);
	char *bundled = ui_data_dir(ctx, "repo");
	if (!r && bundled) {
		char *u = repo_url(bundled);
		r = catalog_add_url(cat, u, kr, today, err);
		free(u);
	}
	free(bundled);
	if (r)
		catalog_free(cat);
	return r;
}

int pkg_use_cache(struct wd_ctx *ctx, const struct volume *v, struct catalog *cat,
		  struct wd_err *err)
{
	if (ctx->dry_run)
		return 0;
	bool found;
	free(cat->cache_dir);
	cat->cache_dir = NULL;
	return volume_resolve(v, STORE_DIR "/packages", &cat->cache_dir, &found, err);
}

int pkg_load(struct wd_ctx *ctx, const struct keyring *kr, const struct catalog *cat,
	     const char *arg, struct package *p, struct wd_err *err)
{
	(void)ctx;
	size_t n = strlen(arg);
	if (strchr(arg, '/') || (n > 4 && !strcmp(arg + n - 4, ".wdp"))) {
		struct wd_buf b = {0};
		int r = wd_read_file(arg, PACKAGE_MAX_BYTES, &b, err);
		if (!r)
			r = package_read(b.p, b.len, kr, arg, p, err);
		wd_buf_free(&b);
		return r;
	}
	const struct repo *from;
	const struct index_entry *e = catalog_find(cat, arg, &from);
	if (!e)
		return wd_err_set(err, WD_EFAIL, "no package named '%s' in the repositories "
				  "('warpdrv list' shows them)", arg);
	return catalog_fetch(from, e, kr, p, err);
}

int pkg_state_read(struct wd_ctx *ctx, struct volume *v, struct db *db, bool *have,
		   struct wd_err *err)
{
	memset(db, 0, sizeof *db);
	struct config_sys cs;
	int r = boot_volume_open(v, &cs, ctx->root, ctx->boot_drive, err);
	if (r)
		return r;
	config_sys_free(&cs);
	if ((r = db_open(db, v, false, have, err)))
		goto fail;
	bool pending = false;
	if (*have && !ctx->dry_run && (r = txn_pending(db, &pending, err)))
		goto fail;
	if (pending) {
		db_close(db);
		struct txn t;
		if ((r = txn_begin(&t, v, "recovery", err)))
			goto fail;
		txn_end(&t);
		if ((r = db_open(db, v, false, have, err)))
			goto fail;
	}
	return 0;
fail:
	db_close(db);
	volume_close(v);
	return r;
}

void pkg_date(int days, char out[11])
{
	wd_date_format(days, out);
}
