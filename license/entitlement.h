/* The one place that decides whether a package needing an entitlement may be
 * installed. Until subscriptions exist every entitlement is refused; the
 * subscription work replaces the body of entitlement_check. */
#ifndef WD_ENTITLEMENT_H
#define WD_ENTITLEMENT_H

#include "catalog/db.h"
#include "catalog/repo.h"
#include "license/keys.h"

struct entitlement_ctx {
	struct db *db;                 /* the volume's database, or NULL if there is none */
	const struct keyring *keys;    /* trusted keys (licence role for subscriptions) */
	const struct catalog *catalog; /* loaded indexes (revoked key ids), may be NULL */
	const char *package;           /* for messages */
};

/* 0 when a package needing entitlement (released on release_day, days since
 * 1970-01-01) may be installed; else -WD_ELICENSE with a message. */
int entitlement_check(const struct entitlement_ctx *ctx, const char *entitlement,
		      int release_day, struct wd_err *err);

#endif
