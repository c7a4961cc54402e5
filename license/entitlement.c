#include "license/entitlement.h"

int entitlement_check(const struct entitlement_ctx *ctx, const char *entitlement,
		      int release_day, struct wd_err *err)
{
	(void)release_day;
	return wd_err_set(err, WD_ELICENSE, "%s needs a subscription with %s; activate a "
			  "subscription key that includes it ('warpdrv activate KEY')",
			  ctx->package, entitlement);
}
