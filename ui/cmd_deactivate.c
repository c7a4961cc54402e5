/* warpdrv deactivate: the volume's key stops being the current one; it stays
 * in the history. */
#include "installer/activate.h"
#include "ui/commands.h"

static void report(struct wd_ctx *ctx, const char *id, bool done)
{
	if (ctx->json) {
		json_obj_begin(&ctx->j, NULL);
		json_bool(&ctx->j, "deactivated", done);
		json_bool(&ctx->j, "dry_run", ctx->dry_run);
		json_str(&ctx->j, "key_id", id[0] ? id : NULL);
		json_obj_end(&ctx->j);
		json_finish(&ctx->j);
	} else if (!id[0]) {
		ui_say(ctx, "No subscription is activated; nothing to do.\n");
	} else if (!done) {
		ui_say(ctx, "Would deactivate key %s (--dry-run: nothing changed).\n", id);
	} else {
		ui_say(ctx, "Deactivated key %s; it stays in the history.\n", id);
	}
}

static int deactivate(struct wd_ctx *ctx, struct wd_err *err)
{
	char id[SUB_ID_HEX];
	int r = deactivate_key(ctx->s, id, err);
	if (!r)
		report(ctx, id, id[0] && !ctx->dry_run);
	return r;
}

int cmd_deactivate(struct wd_ctx *ctx, int argc, char **argv)
{
	if (argc > 0)
		return ui_usage(ctx, "deactivate: unexpected argument '%s'", argv[0]);
	struct wd_err err = {0};
	int r = deactivate(ctx, &err);
	return r ? ui_fail(ctx, r, &err) : 0;
}
