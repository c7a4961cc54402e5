/* warpdrv hold PKG... / unhold PKG...: a held package keeps its installed
 * version; `upgrade` passes it by and says so (installer/hold.h). */
#include "installer/hold.h"
#include "ui/commands.h"
#include "ui/pkgutil.h"

static int set_holds(struct wd_ctx *ctx, char **names, int n, bool held, struct wd_err *err)
{
	int r = hold_packages(ctx->s, names, n, held, err);
	if (!r && ctx->json) {
		json_obj_begin(&ctx->j, NULL);
		/* each package as list shows it: its name and whether it is held */
		json_arr_begin(&ctx->j, "packages");
		for (int i = 0; i < n; i++) {
			json_obj_begin(&ctx->j, NULL);
			json_str(&ctx->j, "name", names[i]);
			json_bool(&ctx->j, "held", held);
			json_obj_end(&ctx->j);
		}
		json_arr_end(&ctx->j);
		json_bool(&ctx->j, "dry_run", ctx->dry_run);
		json_obj_end(&ctx->j);
		json_finish(&ctx->j);
	}
	for (int i = 0; !r && i < n; i++)
		if (ctx->dry_run)
			ui_say(ctx, "Would %s %s (--dry-run: nothing written).\n", held ? "hold" : "unhold",
			       names[i]);
		else
			ui_say(ctx, held ? "%s is held: upgrade leaves it as it is.\n"
					 : "%s is no longer held.\n", names[i]);
	return r;
}

static int hold_cmd(struct wd_ctx *ctx, int argc, char **argv, bool held)
{
	const char *verb = held ? "hold" : "unhold";
	pkg_fold_names(argc, argv);
	if (argc < 1)
		return ui_usage(ctx, "%s: name at least one installed package", verb);
	struct wd_err err = {0};
	int r = set_holds(ctx, argv, argc, held, &err);
	return r ? ui_fail(ctx, r, &err) : 0;
}

int cmd_hold(struct wd_ctx *ctx, int argc, char **argv)
{
	return hold_cmd(ctx, argc, argv, true);
}

int cmd_unhold(struct wd_ctx *ctx, int argc, char **argv)
{
	return hold_cmd(ctx, argc, argv, false);
}
