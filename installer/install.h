/* Installing and removing packages: the policy around the transaction.
 * Every check runs before the lock is taken (signatures were checked when the
 * packages were read; here the subscription gate, the plan against the volume
 * as it is, and for a removal that CONFIG.SYS does not load a file it
 * deletes), then again under the lock, then one transaction per package.
 * Nothing here prints: what happened is told through the callbacks. */
#ifndef WD_INSTALL_H
#define WD_INSTALL_H

#include <stdbool.h>
#include <stddef.h>

#include "catalog/package.h"
#include "catalog/repo.h"
#include "common/err.h"
#include "txn/txn.h"
#include "os2/volume.h"
#include "state/db.h"
#include "trust/keys.h"

enum pkg_event {
	PKG_RECOVERED,   /* an interrupted run was finished or undone first */
	PKG_ALREADY,     /* name version is installed already: nothing to do */
	PKG_INSTALLED,   /* name version installed, nfiles files */
	PKG_REPLACED,    /* name version removed, replaced by `by` */
	PKG_REMOVED,     /* name version removed */
	PKG_UPGRADED,    /* name upgraded (or downgraded) to version, nfiles files */
};

struct pkg_cb {
	void (*event)(void *ud, enum pkg_event ev, const char *name, const char *version,
		      const char *by, size_t nfiles);
	/* A plan made without writing (--dry-run); NULL: plans are not shown. */
	void (*plan)(void *ud, const struct txn_plan *plan);
	/* install --dry-run: e would be downloaded from where first (nothing
	 * downloads); NULL: not told. */
	void (*download)(void *ud, const struct index_entry *e, const char *where);
	/* install PKG=VERSION: a plan that goes below the installed version,
	 * told before the question; NULL: not told. */
	void (*downgrade)(void *ud, const struct txn_plan *plan);
	/* Whether the user said yes to every question already (--yes): then
	 * nothing is told before one. NULL: no. */
	bool (*yes)(void *ud);
	void *ud;
};

struct session;
/* install PKG|PKG=VERSION|FILE.wdp...: for each argument the package (a
 * name at the newest version the subscription allows, PKG=VERSION at that
 * version, a .wdp file), the subscription's gate before anything downloads,
 * a downgrade told and asked first (session_ask), the plans checked before
 * the lock (install_preplan), then each package in its own transaction;
 * --dry-run (the session's) plans and writes nothing. */
int install_run(struct session *ss, char *const *args, int nargs, const struct pkg_cb *cb,
		struct wd_err *err);
/* Whether an argument names a package file (a path, or NAME.wdp in any
 * case) rather than a package of the repositories. */
bool install_arg_is_file(const char *arg);

/* What every package transaction does first, once txn_begin has taken the
 * volume: a recovery it made is told (PKG_RECOVERED), and the catalog's
 * serials and dates are remembered in their own commit. */
int install_txn_started(struct txn *t, const struct catalog *cat, const struct pkg_cb *cb,
			struct wd_err *err);

/* The subscription gate for each package that needs an entitlement, with
 * the revoked key ids and the newest issue date of the indexes in cat
 * (may be NULL). db may be unopened (no database: no subscription). */
int install_check_entitlements(struct db *db, const struct keyring *kr,
			       const struct catalog *cat, const struct package *pkgs, size_t n,
			       struct wd_err *err);
/* Before the lock, writing nothing: plans every package against the volume
 * as it is, in one read of db (the session's; have: the file exists), each
 * plan to cb->plan (the --dry-run output), an installed one to PKG_ALREADY
 * when cb->plan is set; then checks each plan: install_check_loaded on the
 * files it takes away (an older version's, a replaced package's) and room
 * on the volume. install_packages plans and checks again under the lock. */
int install_preplan(struct volume *v, struct db *db, bool have, const struct package *pkgs,
		    size_t n, const struct pkg_cb *cb, struct wd_err *err);
/* Installs the packages, each in its own transaction, after removing the
 * installed packages each replaces; the catalog's serials are remembered. */
int install_packages(struct volume *v, const struct catalog *cat, const struct package *pkgs,
		     size_t n, const struct pkg_cb *cb, struct wd_err *err);

/* Refuses a plan that deletes a file CONFIG.SYS loads (a driver setup
 * configured): the guest would stop at boot looking for it. A file whose
 * original is put back stays loadable. verb: "removing", "upgrading". */
int install_check_loaded(const struct volume *v, const struct txn_plan *plan, const char *verb,
			 struct wd_err *err);
/* Plans the removals without writing, in one read of db (the session's;
 * have: the file exists, and with none nothing is installed), refusing a
 * file CONFIG.SYS loads; each plan goes to cb->plan when set. A transaction
 * an interrupted run left is finished or undone first by the caller
 * (session_db's SESSION_DB_RECOVER), so that the checks are of the volume
 * as recovery leaves it. */
int remove_preplan(struct session *ss, char *const *names, size_t n, const struct pkg_cb *cb,
		   struct wd_err *err);
/* Removes the packages, each in its own transaction: remove_preplan's
 * checks, then every check again under the lock. */
int remove_packages(struct session *ss, char *const *names, size_t n, const struct pkg_cb *cb,
		    struct wd_err *err);

#endif
