/* Every version of a package across the catalog's repositories, and the
 * choice among them: an index lists every release a repository keeps (its
 * "older" lines, docs/formats.md), and the entitlement rule
 * (license/entitlement.h, docs/subscription.md) picks, per package, the
 * newest release the subscription allows from all repositories. */
#ifndef WD_VERSIONS_H
#define WD_VERSIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "catalog/repo.h"
#include "license/activation.h"
#include "state/db.h"

struct catalog_version {
	const struct index_entry *e;
	const struct repo *from;
};

/* A command that takes packages from the repositories and finds none at
 * all (none bundled with the program, none given with --repo, none stored
 * on the volume): WD_EFAIL, saying so and how to add one. 0 otherwise. */
int catalog_need_repository(const struct catalog *c, struct wd_err *err);

/* Each version of name once, newest first (a version several repositories
 * have: the first repository's, in the catalog's order). malloc'd; *n 0
 * (and NULL) when no repository has name. */
struct catalog_version *catalog_versions(const struct catalog *c, const char *name, size_t *n);
/* Each name once, at its newest version, in name order (what list and
 * search show, as apt, dnf, pacman and apk do). malloc'd. */
struct catalog_version *catalog_newest_each(const struct catalog *c, size_t *n);

/* Adds what the catalog's indexes say to an activation's decision: their
 * revoked key ids, and their issue dates (the clock must not be behind). */
void catalog_gate(const struct catalog *c, struct activation *a);
/* The newest release of name the subscription allows (ctx NULL: no key);
 * when none is, the newest, with *allowed false and its refusal in why (may
 * be NULL). NULL when no repository has name. */
const struct index_entry *catalog_pick(const struct catalog *c, const char *name,
				       const struct entitlement_ctx *ctx, const struct repo **from,
				       bool *allowed, struct wd_err *why);
/* catalog_pick for every name at once, in one sort: each name's pick, in
 * the catalog's order of the entries picked. malloc'd. */
struct catalog_version *catalog_pick_each(const struct catalog *c,
					  const struct entitlement_ctx *ctx, size_t *n);
/* catalog_pick with the volume's activation (db may be closed: no key),
 * loaded only when a release of name needs an entitlement. NULL with err
 * set: no package of that name (exit 1), or an activation that does not
 * load. A release refused by the subscription is returned, for the gate to
 * refuse with its message. */
const struct index_entry *catalog_pick_db(struct db *db, const struct keyring *kr,
					  const struct catalog *c, const char *name,
					  const struct repo **from, struct wd_err *err);

/* The subscription's gate for an index entry before it is downloaded:
 * 0 for a free one or one the volume's subscription allows, else
 * -WD_ELICENSE with entitlement_check's reason, prefixed "NAME VERSION". */
int catalog_gate_entry(struct db *db, const struct keyring *kr, const struct catalog *c,
		       const struct index_entry *e, struct wd_err *err);

#endif
