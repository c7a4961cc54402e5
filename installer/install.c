#include "installer/install.h"
#include "session/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/file.h"
#include "installer/boot_critical.h"
#include "license/activation.h"
#include "os2/config_sys.h"
#include "os2/volfiles.h"
#include "state/installed.h"

static void event(const struct pkg_cb *cb, enum pkg_event ev, const char *name,
		  const char *version, const char *by, size_t nfiles)
{
	if (cb && cb->event)
		cb->event(cb->ud, ev, name, version, by, nfiles);
}

int install_check_entitlements(struct db *db, const struct keyring *kr,
			       const struct catalog *cat, const struct package *pkgs, size_t n,
			       struct wd_err *err)
{
	const char **revoked = NULL;
	size_t nrevoked = 0;
	int newest = -1;
	for (size_t i = 0; cat && i < cat->n; i++) {
		const struct repo_index *idx = &cat->repos[i].idx;
		revoked = wd_xrealloc(revoked, (nrevoked + idx->nrevoked + 1) * sizeof *revoked);
		for (size_t k = 0; k < idx->nrevoked; k++)
			revoked[nrevoked++] = idx->revoked[k];
		if (idx->issued > newest)
			newest = idx->issued;
	}
	int r = 0;
	for (size_t i = 0; !r && i < n; i++) {
		if (!pkgs[i].m.entitlement)
			continue;
		r = subscription_gate(db, kr, revoked, nrevoked, newest, pkgs[i].m.entitlement,
				      pkgs[i].m.released, err);
		if (r)
			wd_err_prefix(err, "%s %s", pkgs[i].m.name, pkgs[i].m.version);
	}
	free(revoked);
	return r;
}

int install_preplan(struct volume *v, struct db *db, bool have, const struct package *pkgs,
		    size_t n, const struct pkg_cb *cb, struct wd_err *err)
{
	bool show = cb && cb->plan;
	/* one read transaction: an install of the same package committed by
	 * another warpdrv meanwhile is seen whole or not at all (never as "not
	 * installed" and then "owns these files") */
	int r = have ? db_begin_read(db, err) : 0;
	struct txn_plan *plans = wd_xcalloc(n + 1, sizeof *plans);
	bool *planned = wd_xcalloc(n + 1, sizeof *planned);
	for (size_t i = 0; !r && i < n; i++) {
		bool nothing;
		r = boot_critical_manifest_on(v, &pkgs[i].m, err);
		if (!r)
			r = txn_plan_install(v, db, &pkgs[i], &plans[i], &nothing, err);
		planned[i] = !r && !nothing;
		if (!r && nothing && show)
			event(cb, PKG_ALREADY, pkgs[i].m.name, pkgs[i].m.version, NULL, 0);
		else if (planned[i] && show)
			cb->plan(cb->ud, &plans[i]);
	}
	/* then the checks of every plan (each shown first, as --dry-run tells):
	 * the files it takes away that CONFIG.SYS loads (an older version's, a
	 * replaced package's), and room for what it writes */
	for (size_t i = 0; !r && i < n; i++)
		if (planned[i] && !(r = install_check_loaded(v, &plans[i], plans[i].upgrade_from
									      ? "upgrading"
									      : "installing",
							   err)))
			r = txn_plan_space(v, &plans[i], err);
	for (size_t i = 0; i < n; i++)
		if (planned[i])
			txn_plan_free(&plans[i]);
	free(plans);
	free(planned);
	if (have)
		db_rollback(db);
	return r;
}

/* Tells the installed packages an applied plan removed (`replaces`). */
static void tell_replaced(const struct pkg_cb *cb, const struct txn_plan *plan,
			  const char *by)
{
	for (size_t i = 0; i < plan->nremoves; i++)
		event(cb, PKG_REPLACED, plan->removes[i], plan->removes_version[i], by, 0);
}

/* "install a b c", for the lock file: who holds the volume. */
static void txn_name(const char *verb, const char *const *names, size_t n, char *out,
		     size_t size)
{
	snprintf(out, size, "%s", verb);
	for (size_t i = 0; i < n && strlen(out) < size - 50; i++)
		snprintf(out + strlen(out), size - strlen(out), " %s", names[i]);
}

int install_txn_started(struct txn *t, const struct catalog *cat, const struct pkg_cb *cb,
			struct wd_err *err)
{
	if (t->recovered)
		event(cb, PKG_RECOVERED, NULL, NULL, NULL, 0);
	int r = db_begin(&t->db, err);
	if (!r && !(r = catalog_remember(&t->db, cat, err)))
		r = db_commit(&t->db, err);
	if (r)
		db_rollback(&t->db);
	return r;
}

int install_packages(struct volume *v, const struct catalog *cat, const struct package *pkgs,
		     size_t n, const struct pkg_cb *cb, struct wd_err *err)
{
	const char **names = wd_xcalloc(n + 1, sizeof *names);
	for (size_t i = 0; i < n; i++)
		names[i] = pkgs[i].m.name;
	char what[200];
	txn_name("install", names, n, what, sizeof what);
	free(names);
	struct txn t;
	int r = txn_begin(&t, v, what, err);
	if (r)
		return r;
	r = install_txn_started(&t, cat, cb, err);
	for (size_t i = 0; !r && i < n; i++) {
		struct txn_plan plan;
		bool nothing;
		if ((r = txn_plan_install(v, &t.db, &pkgs[i], &plan, &nothing, err)))
			break;
		if (nothing) {
			event(cb, PKG_ALREADY, pkgs[i].m.name, pkgs[i].m.version, NULL, 0);
			continue;
		}
		/* the old files it takes away, as remove would: not one CONFIG.SYS loads */
		r = install_check_loaded(v, &plan, plan.upgrade_from ? "upgrading" : "installing", err);
		if (!r && !(r = txn_apply(&t, &plan, err))) {
			tell_replaced(cb, &plan, plan.name);
			event(cb, plan.upgrade_from ? PKG_UPGRADED : PKG_INSTALLED, plan.name,
			      plan.version, plan.upgrade_from, pkgs[i].m.nfiles);
		}
		txn_plan_free(&plan);
	}
	txn_end(&t);
	return r;
}

/* The command that stops CONFIG.SYS loading package name's files, by its kind. */
static const char *stop_loading(const struct volume *v, const char *name)
{
	struct db db;
	bool have;
	struct wd_err e;
	struct installed_pkg *ip = NULL;
	size_t n = 0;
	const char *how = "Configure another driver first (warpdrv configure nic --driver NAME, or "
			  "warpdrv configure nic --off for the one before)";
	if (db_open_read(&db, v, &have, &e))
		return how;
	if (have && !installed_packages(&db, &ip, &n, &e))
		for (size_t i = 0; i < n; i++)
			if (!strcmp(ip[i].name, name) && !strcmp(ip[i].kind, "psd"))
				how = "Turn it off first (warpdrv configure acpi --off)";
	installed_packages_free(ip, n);
	db_close(&db);
	return how;
}

/* Refuses to delete a file CONFIG.SYS loads (a driver setup configured):
 * the guest would stop at boot looking for it. A file the package had
 * replaced is put back, and stays loadable. */
int install_check_loaded(const struct volume *v, const struct txn_plan *plan, const char *verb,
			 struct wd_err *err)
{
	struct wd_buf b = {0};
	int r = volfile_config_sys(v, &b, err);
	if (r) {
		wd_buf_free(&b);
		return r;
	}
	struct config_sys cs;
	config_sys_parse(&cs, b.p ? b.p : "", b.len);
	for (size_t i = 0; !r && i < plan->nops; i++) {
		const struct txn_op *o = &plan->ops[i];
		if ((o->kind != TXN_DELETE && (o->kind != TXN_RETIRE || o->kept)) || !o->os2)
			continue;
		const char *base = strrchr(o->os2, '\\');
		base = base ? base + 1 : o->os2;
		for (long k = 0; !r && (k = config_sys_find(&cs, (size_t)k, NULL, base)) >= 0; k++) {
			struct cs_stmt st;
			if (config_sys_stmt(&cs, (size_t)k, &st) && st.loads)
				r = wd_err_set(err, WD_EFAIL, "CONFIG.SYS line %ld loads %s, which %s %s "
					       "deletes: the guest would not find it at boot. %s "
					       "or roll the change back (warpdrv rollback), then %s %s%s",
					       k + 1, base, verb, plan->name, stop_loading(v, plan->name),
					       strcmp(verb, "removing") ? "try" : "remove",
					       strcmp(verb, "removing") ? verb : plan->name,
					       strcmp(verb, "removing") ? " again" : "");
		}
	}
	config_sys_free(&cs);
	wd_buf_free(&b);
	return r;
}

static int not_installed(struct volume *v, const char *name, struct wd_err *err)
{
	return wd_err_set(err, WD_EFAIL, "%s is not installed (nothing is installed on %s)", name,
			  v->root);
}

/* The session's volume and its database for a removal: a volume without a
 * database has nothing installed (said before CONFIG.SYS is read for the
 * boot drive); else first what every writing command does first, an
 * interrupted run finished (a dry run only tells of it). */
struct removal {
	struct volume *v;
	struct db *db;
	bool have;
};

static int removal_open(struct session *ss, struct removal *m, struct wd_err *err)
{
	int r = session_volume(ss, &m->v, err);
	if (!r)
		r = session_db(ss, SESSION_DB_PLAIN, &m->db, &m->have, err);
	if (!r && m->have)
		r = session_db(ss, SESSION_DB_RECOVER, &m->db, &m->have, err);
	return r;
}

static int removal_check(const struct removal *m, char *const *names, size_t n,
			 const struct pkg_cb *cb, struct wd_err *err)
{
	int r = 0;
	if (!m->have && n) /* do not create the state folder just to say no */
		r = not_installed(m->v, names[0], err);
	if (!r) /* one state of the database for every check */
		r = db_begin_read(m->db, err);
	for (size_t i = 0; !r && i < n; i++) {
		struct txn_plan plan;
		if (!(r = txn_plan_remove(m->v, m->db, names[i], &plan, err))) {
			if (!(r = install_check_loaded(m->v, &plan, "removing", err)) &&
			    !(r = txn_check_kept(m->v, &plan, err)) && cb && cb->plan)
				cb->plan(cb->ud, &plan);
			txn_plan_free(&plan);
		}
	}
	if (m->have)
		db_rollback(m->db);
	return r;
}

int remove_preplan(struct session *ss, char *const *names, size_t n, const struct pkg_cb *cb,
		   struct wd_err *err)
{
	struct removal m;
	int r = removal_open(ss, &m, err);
	return r ? r : removal_check(&m, names, n, cb, err);
}

int remove_packages(struct session *ss, char *const *names, size_t n, const struct pkg_cb *cb,
		    struct wd_err *err)
{
	struct removal m;
	int r = removal_open(ss, &m, err);
	/* the checks that need no lock, before the lock file is touched */
	if (!r)
		r = removal_check(&m, names, n, NULL, err);
	struct volume *v = m.v;
	struct txn t;
	if (r || (r = txn_begin(&t, v, "remove", err)))
		return r;
	struct txn_plan *plans = wd_xcalloc(n + 1, sizeof *plans);
	size_t planned = 0;
	for (; !r && planned < n; planned++) /* every check again, under the lock */
		if ((r = txn_plan_remove(v, &t.db, names[planned], &plans[planned], err)))
			break;
	for (size_t i = 0; !r && i < n; i++)
		if (!(r = txn_apply(&t, &plans[i], err)))
			event(cb, PKG_REMOVED, plans[i].name, plans[i].version, NULL, 0);
	for (size_t i = 0; i < planned && i < n; i++)
		txn_plan_free(&plans[i]);
	free(plans);
	txn_end(&t);
	return r;
}
