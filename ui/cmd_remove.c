/* warpdrv remove PKG...: deletes a package's files and puts back the files
 * it had replaced, one transaction per package (installer/install.h); the
 * plan is shown and agreed to first (ui_confirm). */
#include "installer/install.h"
#include "ui/commands.h"
#include "ui/pkgutil.h"

static void show_plan(void *ud, const struct txn_plan *plan)
{
	pkg_show_plan(ud, plan);
}

int cmd_remove(struct wd_ctx *ctx, int argc, char **argv)
{
	pkg_fold_names(argc, argv);
	if (argc < 1)
		return ui_usage(ctx, "remove: name at least one package");
	struct wd_err err = {0};
	struct render rd;
	struct pkg_cb cb = pkg_render(&rd, ctx, "removed");
	int r = 0;
	/* the plan first (what a dry run shows), then ui_confirm's question */
	bool ask = !ctx->dry_run && !ctx->yes;
	if (ctx->dry_run) {
		r = remove_preplan(ctx->s, argv, (size_t)argc, &cb, &err);
	} else if (ask) {
		struct pkg_cb preview = {.plan = show_plan, .ud = ctx};
		r = remove_preplan(ctx->s, argv, (size_t)argc, ctx->json ? NULL : &preview, &err);
		if (!r)
			r = ui_confirm(ctx, "Remove these packages?", &err, "remove changes the volume");
	}
	if (!r && !ctx->dry_run)
		r = remove_packages(ctx->s, argv, (size_t)argc, &cb, &err);
	if (!r)
		pkg_render_close(&rd);
	return r ? ui_fail(ctx, r, &err) : 0;
}
