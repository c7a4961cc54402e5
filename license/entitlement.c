#include "license/entitlement.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/date.h"

const char *sub_state_name(enum sub_state st)
{
	static const char *const names[] = {"none", "active", "expired", "revoked", "clock"};
	return names[st];
}

int entitlement_newest_seen(const struct entitlement_ctx *c)
{
	int newest = c->last_seen;
	if (c->sub && c->sub->issued > newest)
		newest = c->sub->issued;
	return newest;
}

/* One day of grace: a vendor a time zone ahead may issue a key "tomorrow". */
static bool clock_behind(const struct entitlement_ctx *c)
{
	int newest = entitlement_newest_seen(c);
	return newest >= 0 && c->today < newest - 1;
}

static bool is_revoked(const struct entitlement_ctx *c)
{
	for (size_t i = 0; i < c->nrevoked; i++)
		if (!strcasecmp(c->revoked[i], c->sub->id))
			return true;
	return false;
}

enum sub_state entitlement_state(const struct entitlement_ctx *c)
{
	if (!c->sub)
		return SUB_NONE;
	if (clock_behind(c))
		return SUB_CLOCK;
	if (is_revoked(c))
		return SUB_REVOKED;
	return c->today > c->sub->expires ? SUB_EXPIRED : SUB_ACTIVE;
}

int entitlement_usable(const struct entitlement_ctx *c, struct wd_err *err)
{
	char today[WD_DATE_LEN], seen[WD_DATE_LEN];
	switch (entitlement_state(c)) {
	case SUB_NONE:
		return wd_err_set(err, WD_ELICENSE,
				  "no subscription is activated on this volume: "
				  "activate one with 'warpdrv activate KEY'");
	case SUB_CLOCK:
		wd_date_format(c->today, today);
		wd_date_format(entitlement_newest_seen(c), seen);
		return wd_err_set(err, WD_ELICENSE,
				  "the clock looks set back: today is %s, but warpdrv has already "
				  "seen %s; set the date right and try again", today, seen);
	case SUB_REVOKED:
		return wd_err_set(err, WD_ELICENSE,
				  "subscription key %s has been revoked by the vendor (the "
				  "repository index lists it): ask the vendor for a new key",
				  c->sub->id);
	case SUB_ACTIVE:
	case SUB_EXPIRED:
		break;
	}
	return 0;
}

int entitlement_check(const struct entitlement_ctx *c, const char *entitlement, int released,
		      struct wd_err *err)
{
	char rel[WD_DATE_LEN], exp[WD_DATE_LEN];
	wd_date_format(released, rel);
	int r = entitlement_usable(c, err);
	if (r && !c->sub)
		return wd_err_prefix(err, "needs the '%s' entitlement (released %s)", entitlement,
				     rel);
	wd_date_format(c->sub->expires, exp);
	if (r)
		return wd_err_prefix(err, "needs the '%s' entitlement (released %s; the key "
				     "expires %s)", entitlement, rel, exp);
	int bit = sub_entitlement_bit(entitlement);
	if (bit < 0 || !(c->sub->entitlements & (1u << bit))) {
		char has[128];
		sub_entitlements_format(c->sub->entitlements, ", ", has, sizeof has);
		return wd_err_set(err, WD_ELICENSE,
				  "needs the '%s' entitlement (released %s); subscription key %s "
				  "(expires %s) entitles only: %s", entitlement, rel, c->sub->id, exp,
				  has[0] ? has : "nothing");
	}
	if (released > c->sub->expires)
		return wd_err_set(err, WD_ELICENSE,
				  "needs the '%s' entitlement and was released %s, after the "
				  "subscription expired on %s: renew it to install this release "
				  "(releases up to %s stay installable)", entitlement, rel, exp, exp);
	return 0;
}

const char *entitlement_why_not(const struct entitlement_ctx *c, const char *entitlement,
				int released, char *buf, size_t size)
{
	if (!entitlement)
		return NULL;
	char exp[WD_DATE_LEN];
	enum sub_state st = entitlement_state(c);
	int bit = sub_entitlement_bit(entitlement);
	if (st == SUB_NONE)
		snprintf(buf, size, "needs the '%s' entitlement: no subscription is activated",
			 entitlement);
	else if (st == SUB_CLOCK)
		snprintf(buf, size, "the clock looks set back ('warpdrv license' says more)");
	else if (st == SUB_REVOKED)
		snprintf(buf, size, "your subscription key has been revoked");
	else if (bit < 0 || !(c->sub->entitlements & (1u << bit)))
		snprintf(buf, size, "needs the '%s' entitlement, which your subscription lacks",
			 entitlement);
	else if (released > c->sub->expires) {
		wd_date_format(c->sub->expires, exp);
		snprintf(buf, size, "released after your subscription %s on %s",
			 st == SUB_EXPIRED ? "expired" : "ends", exp);
	} else
		return NULL;
	return buf;
}

long entitlement_pick(const struct entitlement_ctx *c, const struct entitlement_offer *v,
		      size_t n, struct wd_err *why)
{
	char buf[256];
	for (size_t i = 0; i < n; i++)
		if (!entitlement_why_not(c, v[i].entitlement, v[i].released, buf, sizeof buf))
			return (long)i;
	if (n && why)
		entitlement_check(c, v[0].entitlement, v[0].released, why);
	return -1;
}
