#include "installer/repair.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/file.h"
#include "common/hash.h"
#include "fs/fs.h"
#include "state/installed.h"

static bool file_damaged(const struct volume *v, const struct installed_file *f)
{
	char *abs = wd_path_join(v->root, f->host), hex[WD_SHA256_HEX];
	struct stat st;
	struct wd_err e;
	bool bad = fs_lstat(&v->fs, abs, &st) < 0 || !S_ISREG(st.st_mode) ||
		   st.st_size != f->size || fs_sha256(&v->fs, abs, hex, &e) || strcmp(hex, f->sha);
	free(abs);
	return bad;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int repair_damaged(const struct volume *v, struct db *db, const char *name, char ***names,
		   size_t *n, size_t *nfiles, struct wd_err *err)
{
	struct installed_file *f = NULL;
	size_t nf = 0;
	*names = NULL;
	*n = *nfiles = 0;
	int r = installed_files(db, name, &f, &nf, err);
	for (size_t i = 0; !r && i < nf; i++) {
		if (!file_damaged(v, &f[i]))
			continue;
		(*nfiles)++;
		bool have = false;
		for (size_t k = 0; k < *n; k++)
			have |= !strcmp((*names)[k], f[i].package);
		if (have)
			continue;
		*names = wd_xrealloc(*names, (*n + 1) * sizeof **names);
		(*names)[(*n)++] = wd_xstrdup(f[i].package);
	}
	installed_files_free(f, nf);
	if (*n)
		qsort(*names, *n, sizeof **names, cmp_str);
	return r;
}

void repair_names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* The plan of one package: an upgrade to the version installed, which
 * rewrites each file the installed version has (REPLACE: the row keeps the
 * original it had replaced) and adds one it lacks. */
static int plan_one(const struct volume *v, struct db *db, const struct package *p,
		    struct txn_plan *plan, struct wd_err *err)
{
	char *have = NULL;
	int r = installed_version(db, p->m.name, &have, err);
	if (!r && !have)
		r = wd_err_set(err, WD_EFAIL, "%s is not installed, so there is nothing to reinstall "
			       "('warpdrv install %s' installs it)", p->m.name, p->m.name);
	else if (!r && strcmp(have, p->m.version))
		r = wd_err_set(err, WD_EFAIL, "%s %s is installed, not %s: reinstall puts back the "
			       "installed version ('warpdrv install %s=%s' changes the version)",
			       p->m.name, have, p->m.version, p->m.name, p->m.version);
	free(have);
	return r ? r : txn_plan_upgrade(v, db, p, plan, err);
}

int reinstall_plan(const struct volume *v, struct db *db, const struct package *pkgs, size_t n,
		   struct txn_plan *plan, struct wd_err *err)
{
	if (n == 1)
		return plan_one(v, db, &pkgs[0], plan, err);
	txn_plan_init(plan, "reinstall", "-");
	int r = 0;
	for (size_t i = 0; !r && i < n; i++) {
		struct txn_plan one;
		if (!(r = plan_one(v, db, &pkgs[i], &one, err)))
			txn_plan_merge(plan, &one);
	}
	if (r)
		txn_plan_free(plan);
	return r;
}

/* The checks of any plan that rewrites files: nothing CONFIG.SYS loads taken
 * away, room on the volume. */
static int check_plan(const struct volume *v, const struct txn_plan *plan, struct wd_err *err)
{
	int r = install_check_loaded(v, plan, "reinstalling", err);
	return r ? r : txn_plan_space(v, plan, err);
}

int reinstall_preplan(struct volume *v, const struct package *pkgs, size_t n,
		      const struct pkg_cb *cb, struct wd_err *err)
{
	struct db db;
	bool have;
	int r = db_open_read(&db, v, &have, err);
	if (!r && !have && n)
		r = wd_err_set(err, WD_EFAIL, "%s is not installed (nothing is installed on %s)",
			       pkgs[0].m.name, v->root);
	if (!r)
		r = db_begin_read(&db, err);
	struct txn_plan plan;
	if (!r && !(r = reinstall_plan(v, &db, pkgs, n, &plan, err))) {
		if (!(r = check_plan(v, &plan, err)) && cb && cb->plan)
			cb->plan(cb->ud, &plan);
		txn_plan_free(&plan);
	}
	db_rollback(&db);
	db_close(&db);
	return r;
}

int reinstall_packages(struct volume *v, const struct catalog *cat, const struct package *pkgs,
		       size_t n, const struct pkg_cb *cb, struct wd_err *err)
{
	char what[200] = "reinstall";
	for (size_t i = 0; i < n && strlen(what) < sizeof what - 50; i++)
		snprintf(what + strlen(what), sizeof what - strlen(what), " %s", pkgs[i].m.name);
	struct txn t;
	int r = txn_begin(&t, v, what, err);
	if (r)
		return r;
	r = install_txn_started(&t, cat, cb, err);
	struct txn_plan plan;
	if (!r && !(r = reinstall_plan(v, &t.db, pkgs, n, &plan, err))) {
		if (!(r = check_plan(v, &plan, err)) && !(r = txn_apply(&t, &plan, err)))
			for (size_t i = 0; cb && cb->event && i < n; i++)
				cb->event(cb->ud, PKG_UPGRADED, pkgs[i].m.name, pkgs[i].m.version,
					  pkgs[i].m.version, pkgs[i].m.nfiles);
		txn_plan_free(&plan);
	}
	txn_end(&t);
	return r;
}
