/* Repair: putting an installed package's files back from the package
 * (`warpdrv reinstall`, `verify --fix`). The package is the installed
 * version read again from its repository (signature and hashes checked as
 * for an install); one transaction rewrites every file it owns, also files
 * CONFIG.SYS loads (warpdrv writes while the guest is off: only a removal
 * must not take a loaded file away). The file rows keep the originals the
 * first install kept, and the history records a "reinstall". Configuration
 * files (CONFIG.SYS, PROTOCOL.INI) are not touched. Nothing here prints. */
#ifndef WD_REPAIR_H
#define WD_REPAIR_H

#include <stdbool.h>
#include <stddef.h>

#include "catalog/package.h"
#include "catalog/repo.h"
#include "common/err.h"
#include "installer/install.h"
#include "os2/volume.h"
#include "state/db.h"

/* The installed packages (only name, when not NULL) with a file that is
 * missing, not a plain file, or of another size or SHA-256 than installed;
 * sorted, each once (malloc'd). *nfiles counts the files. db may be unopened. */
int repair_damaged(const struct volume *v, struct db *db, const char *name, char ***names,
		   size_t *n, size_t *nfiles, struct wd_err *err);
void repair_names_free(char **names, size_t n);

/* One plan putting back every file of each pkgs[i], which must be the
 * installed version of an installed package (else an error naming it and
 * what to run instead). Refuses, as an install does, a file it would delete
 * while CONFIG.SYS loads it (only where the package read again lacks a file
 * the installed one has). */
int reinstall_plan(const struct volume *v, struct db *db, const struct package *pkgs, size_t n,
		   struct txn_plan *plan, struct wd_err *err);
/* The plan against the volume as it is, writing nothing; it goes to
 * cb->plan when set (the --dry-run output), and the room it needs is checked. */
int reinstall_preplan(struct volume *v, const struct package *pkgs, size_t n,
		      const struct pkg_cb *cb, struct wd_err *err);
/* Takes the lock, plans again and applies the plan as one transaction;
 * each package is told as PKG_UPGRADED with by equal to its version. */
int reinstall_packages(struct volume *v, const struct catalog *cat, const struct package *pkgs,
		       size_t n, const struct pkg_cb *cb, struct wd_err *err);

struct session;
/* reinstall d->names: each installed version read again from the
 * repository that has it (the session's keys and catalog; --dry-run
 * downloads nothing), the subscription's gate, the plan (to cb->plan under
 * --dry-run), then one transaction (reinstall_packages). d->pkgs: the
 * packages read, for the front end to name (freed with reinstall_done_free,
 * even on an error). */
struct reinstall_done {
	char *const *names;     /* in: the packages to reinstall */
	size_t n;
	struct package *pkgs;   /* out */
	size_t npkgs;
};
int reinstall_run(struct session *ss, const struct pkg_cb *cb, struct reinstall_done *d,
		  struct wd_err *err);
void reinstall_done_free(struct reinstall_done *d);

/* verify --fix: the session's database (an interrupted run finished first)
 * checked whole, then the installed packages (only pkg, when not NULL,
 * which must be installed) whose files differ, under the volume's shared
 * lock (repair_damaged). */
struct repair_damage {
	char **names;
	size_t n, nfiles;
};
int repair_find(struct session *ss, const char *pkg, struct repair_damage *out,
		struct wd_err *err);
void repair_damage_free(struct repair_damage *d);

#endif
