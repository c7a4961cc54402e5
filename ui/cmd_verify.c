/* warpdrv verify [PKG]: every installed file's size and SHA-256 against the
 * database, and the database's own integrity. Exit 3 on any difference. The
 * rows and the files are read under the volume's shared lock: a transaction
 * under way (a removal putting files back) ends first, or verify says the
 * volume is busy; never a difference that was only half a change
 * (installer/verify.h). */
#include <stdio.h>

#include "installer/verify.h"
#include "ui/commands.h"
#include "ui/exit_code.h"
#include "ui/pkgutil.h"

static void show(struct wd_ctx *ctx, const struct verify_report *rep)
{
	if (ctx->json) {
		json_obj_begin(&ctx->j, NULL);
		json_arr_begin(&ctx->j, "problems");
	}
	for (size_t i = 0; i < rep->n; i++) {
		const struct verify_problem *p = &rep->p[i];
		if (ctx->json) {
			json_obj_begin(&ctx->j, NULL);
			json_str(&ctx->j, "path", p->path);
			json_str(&ctx->j, "package", p->package);
			json_str(&ctx->j, "message", p->why);
			json_obj_end(&ctx->j);
		} else {
			fprintf(stderr, "%s: %s (%s)\n", ui_esc(p->path), ui_esc(p->why),
				ui_esc(p->package));
		}
	}
	if (ctx->json) {
		json_arr_end(&ctx->j);
		json_int(&ctx->j, "checked_count", rep->checked);
		json_obj_end(&ctx->j);
		json_finish(&ctx->j);
	}
}

static int verify(struct wd_ctx *ctx, const char *pkg, struct wd_err *err)
{
	struct verify_report rep;
	int r = verify_files(ctx->s, pkg, &rep, err);
	if (!r || err->kind == WD_K_FILES_DIFFER)
		show(ctx, &rep);
	if (!r)
		ui_say(ctx, "%d installed files checked; all as installed. Database intact.\n",
		       rep.checked);
	verify_report_free(&rep);
	return r;
}

const struct wd_opt cmd_verify_opts[] = {
	WD_OPT_BOOL(struct verify_args, fix, "fix", 0,
		    "reinstall the packages whose files differ (warpdrv reinstall)"),
	{0},
};

bool cmd_verify_writes(const struct wd_ctx *ctx)
{
	return UI_ARGS(ctx, struct verify_args)->fix;
}

int cmd_verify(struct wd_ctx *ctx, int argc, char **argv)
{
	if (argc > 1 || (argc == 1 && argv[0][0] == '-'))
		return ui_usage(ctx, "verify: at most one package name");
	struct wd_err err = {0};
	pkg_fold_names(argc, argv);
	if (UI_ARGS(ctx, struct verify_args)->fix)
		return cmd_verify_fix(ctx, argc ? argv[0] : NULL);
	int r = verify(ctx, argc ? argv[0] : NULL, &err);
	if (!r)
		return 0;
	/* under --json the document with the problems is already out */
	if (ctx->json && err.kind == WD_K_FILES_DIFFER)
		return ui_exit_code(&err, r);
	return ui_fail(ctx, r, &err);
}
