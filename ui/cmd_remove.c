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
	struct volume *v;
	struct db *db;
	bool have = false;
	struct render rd;
	struct pkg_cb cb = pkg_render(&rd, ctx, "removed");
	int r = session_volume(ctx->s, &v, &err);
	/* a volume without a database has nothing installed (said before
	 * CONFIG.SYS is read for the boot drive); else first what every writing
	 * command does first: an interrupted run finished (a dry run only tells
	 * of it) */
	if (!r)
		r = session_db(ctx->s, SESSION_DB_PLAIN, &db, &have, &err);
	if (!r && have)
		r = session_db(ctx->s, SESSION_DB_RECOVER, &db, &have, &err);
	/* the plan first (what a dry run shows), then ui_confirm's question */
	bool ask = !ctx->dry_run && !ctx->yes;
	if (!r && ctx->dry_run) {
		r = remove_preplan(v, db, have, argv, (size_t)argc, &cb, &err);
	} else if (!r && ask) {
		struct pkg_cb preview = {.plan = show_plan, .ud = ctx};
		r = remove_preplan(v, db, have, argv, (size_t)argc, ctx->json ? NULL : &preview,
				   &err);
		if (!r)
			r = ui_confirm(ctx, "Remove these packages?", &err, "remove changes the volume");
	}
	if (!r && !ctx->dry_run)
		r = remove_packages(v, db, have, argv, (size_t)argc, &cb, &err);
	if (!r)
		pkg_render_close(&rd);
	return r ? ui_fail(ctx, r, &err) : 0;
}
