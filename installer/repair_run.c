/* reinstall PKG... and verify --fix as calls below the front end
 * (installer/repair.h: reinstall_run, repair_find): the session gives the
 * volume, the keys, the catalog and the database; the installed version is
 * read again from its repository here; the front end renders through the
 * callbacks and the results. */
#include <stdlib.h>

#include "catalog/versions.h"
#include "installer/repair.h"
#include "session/session.h"
#include "state/installed.h"
#include "txn/txn.h"

/* What one reinstall reads once. */
struct run {
	struct session *ss;
	struct volume *v;
	const struct keyring *kr;
	struct catalog *cat;
	struct db *db;
	bool have;
};

/* The entry of name's installed version, in the repository that has it. */
static const struct index_entry *installed_entry(struct run *u, const char *name,
						 const struct repo **from, struct wd_err *err)
{
	char *ver = NULL;
	const struct index_entry *e = NULL;
	int r = u->have ? installed_version(u->db, name, &ver, err) : 0;
	if (!r && !ver && !catalog_find(u->cat, name, from))
		wd_err_set(err, WD_EFAIL, "no package named %s ('warpdrv list' shows what is on "
			   "offer, 'warpdrv list --installed' what is installed)", name);
	else if (!r && !ver)
		wd_err_set(err, WD_EFAIL, "%s is not installed, so there is nothing to reinstall "
			   "('warpdrv install %s' installs it)", name, name);
	else if (!r && !(e = catalog_find_version(u->cat, name, ver, from)))
		wd_err_set(err, WD_EFAIL, "%s %s is installed, and no repository offers version %s "
			   "any more, so its files cannot be put back from it: add the repository "
			   "that has it ('warpdrv repo add'), or 'warpdrv upgrade %s' to a version "
			   "on offer", name, ver, ver, name);
	free(ver);
	return e;
}

/* Each name's installed version, read from the repository that has it. */
static int load_installed(struct run *u, struct reinstall_done *out, struct wd_err *err)
{
	char *const *names = out->names;
	size_t n = out->n;
	int r = session_db(u->ss, SESSION_DB_RECOVER, &u->db, &u->have, err);
	out->pkgs = wd_xcalloc(n + 1, sizeof *out->pkgs);
	for (size_t i = 0; !r && i < n; i++) {
		const struct repo *from;
		wd_err_clear(err);
		const struct index_entry *e = installed_entry(u, names[i], &from, err);
		if (!e) {
			r = err->code ? -err->code : -WD_EFAIL;
			break;
		}
		if (catalog_would_download(from, e) && u->ss->o.dry_run)
			r = wd_err_set(err, WD_EFAIL, "reinstall --dry-run downloads nothing, and %s "
				       "%s (%llu bytes) is not in the cache: run it without "
				       "--dry-run", e->name, e->version, (unsigned long long)e->size);
		if (!r && !(r = catalog_fetch(from, e, u->kr, &out->pkgs[out->npkgs], err)))
			out->npkgs++;
	}
	if (!r)
		r = install_check_entitlements(u->have ? u->db : NULL, u->kr, u->cat, out->pkgs,
					       out->npkgs, err);
	return r;
}

int reinstall_run(struct session *ss, const struct pkg_cb *cb, struct reinstall_done *out,
		  struct wd_err *err)
{
	struct run u = {.ss = ss};
	out->pkgs = NULL;
	out->npkgs = 0;
	int r = session_volume(ss, &u.v, err);
	if (!r)
		r = session_keyring(ss, &u.kr, err);
	if (!r) /* downloads go to the cache */
		r = session_catalog(ss, true, &u.cat, err);
	if (!r)
		r = catalog_need_repository(u.cat, err);
	if (!r)
		r = load_installed(&u, out, err);
	if (!r)
		r = reinstall_preplan(u.v, out->pkgs, out->npkgs, ss->o.dry_run ? cb : NULL, err);
	if (!r && !ss->o.dry_run)
		r = reinstall_packages(u.v, u.cat, out->pkgs, out->npkgs, cb, err);
	return r;
}

void reinstall_done_free(struct reinstall_done *d)
{
	for (size_t i = 0; i < d->npkgs; i++)
		package_free(&d->pkgs[i]);
	free(d->pkgs);
	d->pkgs = NULL;
	d->npkgs = 0;
}

int repair_find(struct session *ss, const char *pkg, struct repair_damage *out,
		struct wd_err *err)
{
	struct volume *v;
	struct db *db;
	bool have = false;
	*out = (struct repair_damage){0};
	int r = session_boot_volume(ss, &v, err);
	if (!r)
		/* RECOVER whatever verify declares: verify --fix writes */
		r = session_db(ss, SESSION_DB_RECOVER, &db, &have, err);
	if (!r && have)
		r = installed_db_intact(db, err);
	if (!r && pkg) {
		char *ver = NULL;
		if (!have || (!(r = installed_version(db, pkg, &ver, err)) && !ver))
			r = wd_err_set(err, WD_EFAIL, "%s is not installed", pkg);
		free(ver);
	}
	if (r || !have)
		return r;
	/* under the volume's shared lock, as verify reads: the rows and the
	 * files agree (a removal running beside it is waited for); the lock is
	 * let go before any reinstall takes the volume's own */
	int lock = -1;
	r = txn_read_lock(v, &lock, err);
	if (!r)
		r = repair_damaged(v, db, pkg, &out->names, &out->n, &out->nfiles, err);
	txn_read_unlock(lock);
	return r;
}

void repair_damage_free(struct repair_damage *d)
{
	repair_names_free(d->names, d->n);
	*d = (struct repair_damage){0};
}
