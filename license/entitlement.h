/* The entitlement decision: does the activated subscription let this package
 * install today? Pure: every input is given, nothing is read or written. */
#ifndef WD_ENTITLEMENT_H
#define WD_ENTITLEMENT_H

#include <stddef.h>

#include "common/err.h"
#include "license/subscription.h"

enum sub_state {
	SUB_NONE,    /* no key activated */
	SUB_ACTIVE,  /* today is on or before the expiry */
	SUB_EXPIRED, /* past the expiry: still covers what was released before it */
	SUB_REVOKED, /* the vendor's signed index lists the key id */
	SUB_CLOCK,   /* today is more than a day before a date already seen */
};

struct entitlement_ctx {
	const struct subscription *sub; /* the verified, activated key; NULL: none */
	int today;                      /* days since 1970-01-01 */
	int last_seen;                  /* latest date seen (volume, index); -1: none */
	const char *const *revoked;     /* revoked key ids (hex, any case) */
	size_t nrevoked;
};

/* "none", "active", "expired", "revoked", "clock". */
const char *sub_state_name(enum sub_state st);
/* none, then clock, then revoked, then expired, else active. */
enum sub_state entitlement_state(const struct entitlement_ctx *c);
/* The newest date the clock must not fall behind: the last date seen and the
 * key's issue date. -1 when there is none. */
int entitlement_newest_seen(const struct entitlement_ctx *c);
/* 0 when the state is active or expired; otherwise -WD_ELICENSE with a
 * message that says why (no key, clock set back, revoked). */
int entitlement_usable(const struct entitlement_ctx *c, struct wd_err *err);

/* May a package that needs `entitlement`, released on day `released`,
 * install? Yes when the key is usable, has the entitlement and the package
 * was released on or before the key's expiry. A refusal is -WD_ELICENSE and
 * names the entitlement, the release date and the key's expiry. */
int entitlement_check(const struct entitlement_ctx *c, const char *entitlement, int released,
		      struct wd_err *err);

/* Why a release is not allowed, in a few words for a list of versions
 * ("released after your subscription expired on 2027-01-01"), into buf;
 * NULL (buf untouched) when it is allowed: entitlement_check's rule. A
 * free release (entitlement NULL) is always allowed. */
const char *entitlement_why_not(const struct entitlement_ctx *c, const char *entitlement,
				int released, char *buf, size_t size);

/* One release of a package, for entitlement_pick. */
struct entitlement_offer {
	const char *entitlement; /* NULL: free */
	int released;
};
/* The rule of docs/subscription.md for one package: of its releases v[0..n),
 * given newest first, the newest the subscription allows. Returns its
 * position, or -1 when none is allowed (then *why, if not NULL, gets the
 * newest one's refusal, as entitlement_check says it). */
long entitlement_pick(const struct entitlement_ctx *c, const struct entitlement_offer *v,
		      size_t n, struct wd_err *why);

#endif
