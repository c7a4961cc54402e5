/* warpdrv hold PKG... / unhold PKG...: a held package keeps its installed
 * version; `upgrade` passes it by and says so (state/holds.h). */
#include "state/holds.h"
#include "state/installed.h"
#include "ui/commands.h"
#include "ui/pkgutil.h"

#include <stdlib.h>

static int set_holds(struct wd_ctx *ctx, char **names, int n, bool held, struct wd_err *err)
{
	struct volume *v;
	struct db *db;
	bool have;
	int r = session_volume(ctx->s, &v, err);
	if (!r)
		r = session_db(ctx->s, SESSION_DB_PLAIN, &db, &have, err);
	if (!r && !have)
		r = wd_err_set(err, WD_EFAIL, "%s is not installed (nothing is installed on %s)",
			       names[0], v->root);
	for (int i = 0; !r && i < n; i++) {
		char *ver = NULL;
		if (!(r = installed_version(db, names[i], &ver, err)) && !ver)
			r = wd_err_set(err, WD_EFAIL, "%s is not installed ('warpdrv list --installed' "
				       "shows what is)", names[i]);
		free(ver);
	}
	if (!r && !ctx->dry_run && !(r = db_begin(db, err))) {
		for (int i = 0; !r && i < n; i++)
			r = hold_set(db, names[i], held, err);
		if (r || (r = db_commit(db, err)))
			db_rollback(db);
	}
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
