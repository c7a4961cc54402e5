#include "session/session.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/repolist.h"
#include "catalog/store.h"
#include "common/date.h"
#include "common/file.h"
#include "installer/txn.h"
#include "license/activation.h"
#include "os2/boot_drive.h"

static void warn(const struct session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

int session_keyring(const struct session *s, const struct volume *v, struct keyring *kr,
		    struct wd_err *err)
{
	memset(kr, 0, sizeof *kr);
	int r = s->bundled_keys ? keyring_add_dir(kr, s->bundled_keys, err) : 0;
	if (!r && s->keys_dir) {
		if (!wd_is_dir(s->keys_dir)) /* host: --keys names a folder of the user's */
			r = wd_err_set(err, WD_EUSAGE, "--keys %s: no such folder", s->keys_dir);
		else
			r = keyring_add_dir(kr, s->keys_dir, err);
	}
	/* Keys on the volume are the volume's data, and the volume is anyone's:
	 * they are never trusted, only named, so that the user knows why a
	 * package or key signed by them is refused. */
	if (!r && v) {
		char *dir = NULL;
		bool found;
		struct wd_err e;
		if (!volume_resolve(v, WD_STATE_DIR "/keys", &dir, &found, &e) && found)
			warn(s, "%s: keys found on the volume are ignored; warpdrv trusts only its "
			     "own keys and those given with --keys DIR", dir);
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

static void warn(const struct session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void warn(const struct session *s, const char *fmt, ...)
{
	if (!s->cb.warn)
		return;
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	s->cb.warn(s->cb.ud, msg);
}

static void add_stored(const struct session *s, sqlite3 *store, const struct keyring *kr,
		       const struct repo_conf *rc, int today, bool other, struct catalog *cat,
		       struct wd_err *err, int *r)
{
	struct repo_index idx;
	bool found;
	if ((*r = store_get(store, rc->name, rc->url, kr, &idx, &found, err)))
		return;
	if (!found) {
		if (!other)
			warn(s, "repository %s has no catalog yet: run 'warpdrv update'", rc->name);
		return;
	}
	wd_buf_free(&idx.text); /* verified; only update keeps it */
	if (today > idx.expires) {
		char d[WD_DATE_LEN];
		wd_date_format(idx.expires, d);
		warn(s, "repository %s: its catalog expired on %s; run 'warpdrv update'", rc->name,
		     d);
	}
	catalog_add_index(cat, rc->name, rc->url, rc->mirrors, rc->nmirrors, rc->subscription,
			  &idx);
}

/* The remote repositories of the volume, from the catalog `update` stored
 * (no network), each index verified again with kr: one that does not verify
 * is an error (-WD_ETRUST, docs/repository.md), one of another version of
 * the stored catalog is a note. Writes nothing. */
static int add_stored_all(const struct session *s, const struct keyring *kr, int today,
			  struct catalog *cat, struct wd_err *err)
{
	struct volume v = {0};
	struct db db = {0};
	struct repo_list l = {0};
	sqlite3 *store = NULL;
	char *path = NULL;
	bool have, found, other = false;
	int r = volume_open(&v, s->root, err);
	if (!r)
		r = db_open(&db, &v, false, &have, err);
	if (!r)
		r = repolist_read(&db, &l, err);
	if (!r && l.n)
		r = volume_resolve(&v, STORE_DIR "/" STORE_NAME, &path, &found, err);
	if (!r && l.n)
		r = store_open(&v.fs, path, &store, &other, err);
	if (!r && other)
		warn(s, "%s: a catalog of another warpdrv version: ignored; run 'warpdrv update'",
		     path);
	for (size_t i = 0; !r && i < l.n; i++) {
		add_stored(s, store, kr, &l.v[i], today, other, cat, err, &r);
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

int session_catalog(const struct session *s, const struct keyring *kr, struct catalog *cat,
		    struct wd_err *err)
{
	catalog_init(cat, s->net);
	int today;
	int r = wd_today(&today, err);
	for (int i = 0; !r && i < s->nrepos; i++) {
		char *u = repo_url(s->repos[i]);
		r = catalog_add_url(cat, u, kr, today, err);
		free(u);
	}
	if (!r && s->root)
		r = add_stored_all(s, kr, today, cat, err);
	if (!r && s->bundled_repo)
		r = catalog_add_bundled(cat, s->bundled_repo, kr, err);
	if (r)
		catalog_free(cat);
	return r;
}

int session_use_cache(const struct session *s, const struct volume *v, struct catalog *cat,
		      struct wd_err *err)
{
	bool found;
	free(cat->cache_dir);
	cat->cache_dir = NULL;
	cat->cache_fs = &v->fs;
	/* under --dry-run the cache is read, never written: nothing downloads */
	cat->no_download = s->dry_run;
	return volume_resolve(v, STORE_DIR "/packages", &cat->cache_dir, &found, err);
}

int session_load(const struct keyring *kr, const struct catalog *cat, const char *arg,
		 struct package *p, struct wd_err *err)
{
	size_t n = strlen(arg);
	if (strchr(arg, '/') || (n > 4 && !strcmp(arg + n - 4, ".wdp"))) {
		struct wd_buf b = {0};
		int r = wd_read_file(arg, PACKAGE_MAX_BYTES, &b, err); /* host: a package file named on the command line */
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

int session_state_read(const struct session *s, struct volume *v, struct db *db, bool *have,
		       struct wd_err *err)
{
	memset(db, 0, sizeof *db);
	struct config_sys cs;
	int r = boot_volume_open(v, &cs, s->root, s->boot_drive, err);
	if (r)
		return r;
	config_sys_free(&cs);
	if ((r = db_open(db, v, false, have, err)))
		goto fail;
	bool pending = false;
	if (*have && !s->dry_run && (r = txn_pending(db, &pending, err)))
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
