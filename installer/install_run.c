/* install PKG|PKG=VERSION|FILE.wdp... as one call below the front end
 * (installer/install.h: install_run): the session gives the volume, the
 * keys, the catalog, the database and the subscription; the version picked,
 * the gate asked and the package downloaded here; the front end renders
 * through the callbacks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "catalog/version.h"
#include "catalog/versions.h"
#include "installer/install.h"
#include "session/session.h"

bool install_arg_is_file(const char *arg)
{
	size_t n = strlen(arg);
	return strchr(arg, '/') || (n > 4 && !strcasecmp(arg + n - 4, ".wdp"));
}

/* What install_run reads once and every argument uses. */
struct run {
	struct session *ss;
	struct volume *v;
	const struct keyring *kr;
	struct catalog *cat;
	struct db *db;
	bool have;
	const struct pkg_cb *cb;
};

/* The catalog entry an argument names (NULL for a .wdp file, *err clear): a
 * name at the newest version the subscription allows (catalog/versions.h),
 * PKG=VERSION at that version from whichever repository has it. */
static const struct index_entry *arg_entry(const struct run *u, const char *arg,
					   const struct repo **from, struct wd_err *err)
{
	size_t n = strlen(arg);
	if (strchr(arg, '/') || (n > 4 && !strcmp(arg + n - 4, ".wdp")))
		return NULL;
	const char *eq = strchr(arg, '=');
	if (!eq)
		return catalog_pick_db(u->db, u->kr, u->cat, arg, from, err);
	char *name = wd_xstrndup(arg, (size_t)(eq - arg));
	const struct index_entry *e = catalog_find_version(u->cat, name, eq + 1, from);
	if (!e)
		wd_err_set(err, WD_EFAIL, "no package %s at version %s in the repositories "
			   "('warpdrv info %s' lists its versions)", name, eq + 1, name);
	free(name);
	return e;
}

/* A package file, or the entry arg_entry names, read; PKG=VERSION may
 * replace a newer version. */
static int load_arg(const struct run *u, const char *arg, struct package *p, struct wd_err *err)
{
	const struct repo *from;
	wd_err_clear(err);
	const struct index_entry *e = arg_entry(u, arg, &from, err);
	if (!e && !err->code)
		return session_load(u->ss, arg, p, err);
	/* the subscription's refusal before anything is downloaded */
	int r = e ? catalog_gate_entry(u->db, u->kr, u->cat, e, err) : -err->code;
	if (!r)
		r = catalog_fetch(from, e, u->kr, p, err);
	if (!r && strchr(arg, '='))
		p->downgrade_ok = true;
	return r;
}

/* --dry-run downloads nothing: a package that would be downloaded is told
 * (cb->download) with its size from the signed index, instead of its files. */
static bool dry_download(const struct run *u, const char *arg)
{
	const struct repo *from;
	struct wd_err ignore = {0};
	const struct index_entry *e = u->ss->o.dry_run ? arg_entry(u, arg, &from, &ignore) : NULL;
	if (!e || !catalog_would_download(from, e))
		return false;
	if (u->cb->download)
		u->cb->download(u->cb->ud, e, from->name ? from->name : from->url);
	return true;
}

/* install PKG=VERSION below the installed version: each such plan told
 * (cb->downgrade), counted for the question. */
struct downgrades {
	const struct pkg_cb *cb;
	int n;
	char first[160]; /* "pcntnd 4.13 goes below the installed 4.14" */
};

static void note_downgrade(void *ud, const struct txn_plan *plan)
{
	struct downgrades *d = ud;
	if (!plan->upgrade_from || !version_is_downgrade(plan->upgrade_from, plan->version))
		return;
	if (d->cb->downgrade)
		d->cb->downgrade(d->cb->ud, plan);
	if (!d->n++)
		snprintf(d->first, sizeof d->first, "%s %s goes below the installed %s", plan->name,
			 plan->version, plan->upgrade_from);
}

/* A downgrade is a change the user may not expect: told and asked first,
 * as remove and setup ask (session_ask). */
static int confirm_downgrades(const struct run *u, const struct package *pkgs, int n,
			      struct wd_err *err)
{
	bool named = false;
	for (int i = 0; i < n; i++)
		named |= pkgs[i].downgrade_ok;
	if (u->ss->o.dry_run || !named || (u->cb->yes && u->cb->yes(u->cb->ud)))
		return 0;
	struct downgrades d = {.cb = u->cb};
	struct pkg_cb preview = {.plan = note_downgrade, .ud = &d};
	int r = install_preplan(u->v, u->db, u->have, pkgs, (size_t)n, &preview, err);
	if (r || !d.n)
		return r;
	char refusal[200];
	snprintf(refusal, sizeof refusal, "install: %s%s", d.first, d.n > 1 ? " (and more)" : "");
	return session_ask(u->ss, d.n == 1 ? "Downgrade this package?" : "Downgrade these packages?",
			   refusal, err);
}

static int open_run(struct run *u, char *const *args, int nargs, struct wd_err *err)
{
	int r = session_volume(u->ss, &u->v, err);
	if (!r)
		r = session_keyring(u->ss, &u->kr, err);
	if (!r)
		r = session_catalog(u->ss, true, &u->cat, err);
	for (int i = 0; !r && i < nargs; i++)
		if (!install_arg_is_file(args[i])) {
			r = catalog_need_repository(u->cat, err);
			break;
		}
	if (!r) /* read only, for the subscription's choice, its gate and the plans */
		r = session_cmd_db(u->ss, &u->db, &u->have, err);
	return r;
}

int install_run(struct session *ss, char *const *args, int nargs, const struct pkg_cb *cb,
		struct wd_err *err)
{
	struct run u = {.ss = ss, .cb = cb};
	struct package *pkgs = wd_xcalloc((size_t)nargs + 1, sizeof *pkgs);
	int n = 0;
	int r = open_run(&u, args, nargs, err);
	for (int i = 0; !r && i < nargs; i++)
		if (!dry_download(&u, args[i]) && !(r = load_arg(&u, args[i], &pkgs[n], err)))
			n++;
	if (!r)
		r = install_check_entitlements(u.db, u.kr, u.cat, pkgs, (size_t)n, err);
	if (!r)
		r = confirm_downgrades(&u, pkgs, n, err);
	if (!r)
		r = install_preplan(u.v, u.db, u.have, pkgs, (size_t)n, cb, err);
	if (!r && !ss->o.dry_run)
		r = install_packages(u.v, u.cat, pkgs, (size_t)n, cb, err);
	for (int i = 0; i < n; i++)
		package_free(&pkgs[i]);
	free(pkgs);
	return r;
}
