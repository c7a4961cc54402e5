/* Upgrades: for each installed package, the newest version in any
 * repository that the subscription allows (a package that needs an
 * entitlement only in versions released on or before the key's expiry), and
 * the transaction that replaces the old version's files with the new.
 * Nothing here prints: the choices are data for ui/cmd_upgrade.c. */
#ifndef WD_UPGRADE_H
#define WD_UPGRADE_H

#include <stdbool.h>
#include <stddef.h>

#include "catalog/repo.h"
#include "common/err.h"
#include "installer/install.h"
#include "installer/setup.h"
#include "os2/volume.h"
#include "state/db.h"
#include "trust/keys.h"

struct upgrade_choice {
	char *name, *installed;            /* the installed package and version */
	bool held;                         /* `warpdrv hold`: not upgraded */
	const struct index_entry *to;      /* the newest allowed, newer than installed; or NULL */
	const struct repo *to_from;
	const struct index_entry *newest;  /* the newest of all, when it is not allowed; or NULL */
	char *why_not;                     /* why newest is not offered (the gate's message) */
};

/* The choice for each named installed package (names NULL: every installed
 * package). A named package that is not installed is an error naming it. */
int upgrade_choose(struct db *db, const struct keyring *kr, const struct catalog *cat,
		   char *const *names, size_t n, struct upgrade_choice **out, size_t *nout,
		   struct wd_err *err);
void upgrade_choices_free(struct upgrade_choice *c, size_t n);

/* The newest version named name in any repository of cat, or NULL. */
const struct index_entry *upgrade_newest(const struct catalog *cat, const char *name,
					 const struct repo **from);

/* Plans the upgrades of the loaded packages against the volume as it is,
 * writing nothing; each plan goes to cb->plan. A plan that deletes a file
 * CONFIG.SYS loads is refused (install_check_loaded) unless boot_follows:
 * then the boot files' own plan (upgrade_boot_plan) rewrites those lines. */
int upgrade_preplan(struct volume *v, const struct package *pkgs, size_t n, bool boot_follows,
		    const struct pkg_cb *cb, struct wd_err *err);
/* Replaces each package's installed version by pkgs[i], all in one
 * transaction, every check made again under the lock. */
int upgrade_packages(struct volume *v, const struct catalog *cat, const struct package *pkgs,
		     size_t n, const struct pkg_cb *cb, struct wd_err *err);

/* installer/upgrade_boot.c: for each NIC package of pkgs, the edits of s's
 * CONFIG.SYS and PROTOCOL.INI models its new version needs (its driver file
 * on the DEVICE= lines that load the old one, its DriverName in the section
 * they answer to); for a package with CONFIG.SYS statements the guest loads
 * (config-need: the ACPI PSD), its new statements and no line loading a file
 * it no longer has; then the packages to install are pkgs, the models are
 * rendered and the postcondition checked. setup_file_changed tells whether
 * a file changes; setup_apply writes it all in one transaction. */
int upgrade_boot_plan(struct setup *s, const struct package *pkgs, size_t n,
		      struct wd_err *err);

struct session;
/* What one upgrade works on: the session's volume, keys and catalog, each
 * installed package's choice, and the versions chosen once read. */
struct upgrade_set {
	struct session *ss;
	struct volume *v;
	const struct keyring *kr;
	struct catalog *cat;
	struct upgrade_choice *c;
	size_t nc;
	struct package *pkgs;
	size_t npkgs;
};
/* Opens what upgrade needs through the session (the database as it is: the
 * transaction recovers first) and makes the choice of each named installed
 * package (names NULL or n 0: every one). */
int upgrade_prepare(struct session *ss, char *const *names, size_t n, struct upgrade_set *u,
		    struct wd_err *err);
/* Reads (downloads) each chosen version, its signature and hashes checked. */
int upgrade_fetch(struct upgrade_set *u, struct wd_err *err);
/* The boot files the new versions change (upgrade_boot_plan), with the
 * database (an interrupted run finished first): *s the plan when
 * CONFIG.SYS or PROTOCOL.INI changes (its view has the diff), else NULL. */
int upgrade_boot_prepare(struct upgrade_set *u, struct setup **s, struct wd_err *err);

/* What upgrade_apply tells the front end and asks it. */
struct upgrade_apply_cb {
	struct pkg_cb pkg; /* the packages' plan (a dry run) and what was upgraded */
	/* The boot files' plan (its diff and notes), before the question. */
	void (*boot_plan)(void *ud, const struct setup_view *pv);
	/* The question before anything is written: 0 for yes, else the error. */
	int (*confirm)(void *ud, struct wd_err *err);
	void *ud;
};
struct upgrade_outcome {
	bool boot;       /* the boot files change with the packages */
	bool applied;    /* written */
	long generation; /* the boot files' generation, when applied (0: none) */
};
/* The read versions planned and, unless dry_run, written once cb->confirm
 * says yes: a new version that changes what CONFIG.SYS or PROTOCOL.INI must
 * say (a NIC driver, a package with CONFIG.SYS statements) goes with both
 * files in one transaction and a generation (installer/setup.h); the
 * others replace the installed packages in one transaction. */
int upgrade_apply(struct upgrade_set *u, bool dry_run, const struct upgrade_apply_cb *cb,
		  struct upgrade_outcome *out, struct wd_err *err);
void upgrade_set_free(struct upgrade_set *u);

#endif
