/* warpdrv license: the state of the volume's subscription. Reads only: it
 * writes nothing to the volume. Exits 0 when the subscription is active and
 * 4 otherwise (none, expired, revoked, clock), after the report. */
#include <stdlib.h>

#include "installer/query.h"
#include "ui/commands.h"
#include "ui/pkgutil.h"
#include "ui/subscription_ui.h"

static void report(struct wd_ctx *ctx, const struct activation *a, enum sub_state st,
		   const char *why)
{
	if (ctx->json) {
		json_obj_begin(&ctx->j, NULL);
		ui_sub_json(ctx, st, a->ctx.sub, a->ctx.today);
		json_str(&ctx->j, "activated", a->have ? a->activated : NULL);
		json_str(&ctx->j, "reason", why);
		json_obj_end(&ctx->j);
		json_finish(&ctx->j);
		return;
	}
	ui_sub_text(ctx, st, a->ctx.sub, a->ctx.today);
	if (a->have)
		ui_say(ctx, "Activated:     %s\n", ui_esc(a->activated));
	if (why)
		ui_say(ctx, "Why:           %s\n", ui_esc(why));
}

static int license(struct wd_ctx *ctx, struct wd_err *err)
{
	struct license_status ls;
	int r = query_license(ctx->s, &ls, err);
	if (!r) {
		report(ctx, ls.a, ls.st, ls.why.msg[0] ? ls.why.msg : NULL);
		r = ls.st == SUB_ACTIVE ? 0 : -WD_ELICENSE;
	}
	return r;
}

int cmd_license(struct wd_ctx *ctx, int argc, char **argv)
{
	if (argc > 0)
		return ui_usage(ctx, "license: unexpected argument '%s'", argv[0]);
	struct wd_err err = {0};
	int r = license(ctx, &err);
	if (r && err.code)
		return ui_fail(ctx, r, &err);
	return -r;
}
