#include "installer/upgrade.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/version.h"
#include "common/buf.h"
#include "installer/boot_critical.h"
#include "license/activation.h"
#include "state/holds.h"
#include "state/installed.h"

const struct index_entry *upgrade_newest(const struct catalog *cat, const char *name,
					 const struct repo **from)
{
	const struct index_entry *best = NULL;
	for (size_t i = 0; i < cat->n; i++) {
		const struct repo_index *idx = &cat->repos[i].idx;
		for (size_t k = 0; k < idx->npkgs; k++) {
			const struct index_entry *e = &idx->pkgs[k];
			if (strcmp(e->name, name) || (best && version_cmp(e->version, best->version) <= 0))
				continue;
			best = e;
			if (from)
				*from = &cat->repos[i];
		}
	}
	return best;
}

/* The revoked key ids and the newest issue date of the catalog's indexes. */
struct gate {
	const char **revoked;
	size_t nrevoked;
	int newest;
};

static void gate_init(struct gate *g, const struct catalog *cat)
{
	*g = (struct gate){.newest = -1};
	for (size_t i = 0; i < cat->n; i++) {
		const struct repo_index *idx = &cat->repos[i].idx;
		g->revoked = wd_xrealloc(g->revoked, (g->nrevoked + idx->nrevoked + 1) *
							     sizeof *g->revoked);
		for (size_t k = 0; k < idx->nrevoked; k++)
			g->revoked[g->nrevoked++] = idx->revoked[k];
		if (idx->issued > g->newest)
			g->newest = idx->issued;
	}
}

/* Is e allowed? A refusal by the subscription is an answer (its message in
 * *why), any other failure an error. */
static int allowed(struct db *db, const struct keyring *kr, const struct gate *g,
		   const struct index_entry *e, bool *ok, char **why, struct wd_err *err)
{
	*ok = true;
	if (!e->entitlement)
		return 0;
	struct wd_err e2 = {0};
	int r = subscription_gate(db, kr, g->revoked, g->nrevoked, g->newest, e->entitlement,
				  e->released, &e2);
	if (r == -WD_ELICENSE) {
		*ok = false;
		free(*why);
		*why = wd_xasprintf("%s %s %s", e->name, e->version, e2.msg);
		return 0;
	}
	if (r)
		*err = e2;
	return r;
}

/* The newest allowed version of c->name newer than c->installed. */
static int choose_one(struct db *db, const struct keyring *kr, const struct catalog *cat,
		      const struct gate *g, struct upgrade_choice *c, struct wd_err *err)
{
	const struct repo *from = NULL;
	c->newest = upgrade_newest(cat, c->name, &from);
	int r = 0;
	for (size_t i = 0; !r && i < cat->n; i++) {
		const struct repo_index *idx = &cat->repos[i].idx;
		for (size_t k = 0; !r && k < idx->npkgs; k++) {
			const struct index_entry *e = &idx->pkgs[k];
			bool ok;
			if (strcmp(e->name, c->name) || version_cmp(e->version, c->installed) <= 0 ||
			    (c->to && version_cmp(e->version, c->to->version) <= 0))
				continue;
			if (!(r = allowed(db, kr, g, e, &ok, &c->why_not, err)) && ok) {
				c->to = e;
				c->to_from = &cat->repos[i];
			}
		}
	}
	if (c->newest && (version_cmp(c->newest->version, c->installed) <= 0 ||
			  (c->to && !version_cmp(c->newest->version, c->to->version))))
		c->newest = NULL;
	return r;
}

static int choices_of(struct db *db, char *const *names, size_t n,
		      struct upgrade_choice **out, size_t *nout, struct wd_err *err)
{
	struct installed_pkg *ip = NULL;
	size_t nip = 0;
	int r = installed_packages(db, &ip, &nip, err);
	*out = wd_xcalloc((names ? n : nip) + 1, sizeof **out);
	*nout = 0;
	for (size_t i = 0; !r && i < (names ? n : nip); i++) {
		const char *name = names ? names[i] : ip[i].name;
		struct upgrade_choice *c = &(*out)[(*nout)++];
		c->name = wd_xstrdup(name);
		if (!(r = installed_version(db, name, &c->installed, err)) && !c->installed)
			r = wd_err_set(err, WD_EFAIL, "%s is not installed, so it cannot be upgraded "
				       "('warpdrv install %s' installs it)", name, name);
		if (!r)
			r = hold_get(db, name, &c->held, err);
	}
	installed_packages_free(ip, nip);
	return r;
}

int upgrade_choose(struct db *db, const struct keyring *kr, const struct catalog *cat,
		   char *const *names, size_t n, struct upgrade_choice **out, size_t *nout,
		   struct wd_err *err)
{
	int r = choices_of(db, names, n, out, nout, err);
	struct gate g;
	gate_init(&g, cat);
	for (size_t i = 0; !r && i < *nout; i++)
		r = choose_one(db, kr, cat, &g, &(*out)[i], err);
	free(g.revoked);
	if (r) {
		upgrade_choices_free(*out, *nout);
		*out = NULL;
		*nout = 0;
	}
	return r;
}

void upgrade_choices_free(struct upgrade_choice *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(c[i].name);
		free(c[i].installed);
		free(c[i].why_not);
	}
	free(c);
}

/* One plan for every package: each package's upgrade merged. */
static int plan_all(struct volume *v, struct db *db, const struct package *pkgs, size_t n,
		    struct txn_plan *all, struct wd_err *err)
{
	int r = 0;
	if (n == 1)
		return txn_plan_upgrade(v, db, &pkgs[0], all, err);
	txn_plan_init(all, "upgrade", "-");
	for (size_t i = 0; !r && i < n; i++) {
		struct txn_plan one;
		if (!(r = txn_plan_upgrade(v, db, &pkgs[i], &one, err)))
			txn_plan_merge(all, &one);
	}
	if (r)
		txn_plan_free(all);
	return r;
}

int upgrade_preplan(struct volume *v, const struct package *pkgs, size_t n, bool boot_follows,
		    const struct pkg_cb *cb, struct wd_err *err)
{
	struct db db;
	bool have;
	int r = db_open_read(&db, v, &have, err);
	for (size_t i = 0; !r && i < n; i++) {
		struct txn_plan plan;
		if ((r = boot_critical_manifest_on(v, &pkgs[i].m, err)) ||
		    (r = txn_plan_upgrade(v, &db, &pkgs[i], &plan, err)))
			break;
		if ((!boot_follows && (r = install_check_loaded(v, &plan, "upgrading", err))) ||
		    (r = txn_plan_space(v, &plan, err))) {
			txn_plan_free(&plan);
			break;
		}
		if (cb && cb->plan)
			cb->plan(cb->ud, &plan);
		txn_plan_free(&plan);
	}
	/* Room for each package is not room for all of them. */
	struct txn_plan all;
	if (!r && n > 1 && !(r = plan_all(v, &db, pkgs, n, &all, err))) {
		r = txn_plan_space(v, &all, err);
		txn_plan_free(&all);
	}
	db_close(&db);
	return r;
}

int upgrade_packages(struct volume *v, const struct catalog *cat, const struct package *pkgs,
		     size_t n, const struct pkg_cb *cb, struct wd_err *err)
{
	struct txn t;
	int r = txn_begin(&t, v, "upgrade", err);
	if (r)
		return r;
	r = install_txn_started(&t, cat, cb, err);
	struct txn_plan plan;
	if (!r && !(r = plan_all(v, &t.db, pkgs, n, &plan, err))) {
		if (!(r = install_check_loaded(v, &plan, "upgrading", err)) &&
		    !(r = txn_plan_space(v, &plan, err)) && !(r = txn_apply(&t, &plan, err)))
			for (size_t i = 0; cb && cb->event && i < n; i++)
				cb->event(cb->ud, PKG_UPGRADED, pkgs[i].m.name, pkgs[i].m.version, NULL,
					  pkgs[i].m.nfiles);
		txn_plan_free(&plan);
	}
	txn_end(&t);
	return r;
}
