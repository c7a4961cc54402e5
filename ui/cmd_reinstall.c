/* warpdrv reinstall PKG... and verify --fix: the installed version of each
 * package read again from its repository (signatures and hashes checked),
 * and every file of it put back in one transaction (installer/repair.h).
 * Like install, it writes no configuration file and does not ask;
 * --dry-run shows the plan. */
#include <stdlib.h>
#include <string.h>

#include "installer/repair.h"
#include "ui/commands.h"
#include "ui/pkgutil.h"

static void on_plan(void *ud, const struct txn_plan *plan)
{
	struct wd_ctx *ctx = ud;
	if (ctx->json)
		return;
	ui_say(ctx, "Reinstall %s %s:\n", ui_esc(plan->name),
	       strcmp(plan->version, "-") ? ui_esc(plan->version) : "");
	for (size_t i = 0; i < plan->nops; i++) {
		const struct txn_op *o = &plan->ops[i];
		const char *verb = o->kind == TXN_MKDIR ? "create folder"
				   : o->kind == TXN_REPLACE ? "put back"
				   : o->kind == TXN_PUT ? "add"
				   : o->kind == TXN_RETIRE ? "delete (not in the package)" : "change";
		ui_say(ctx, "  %-24s %s\n", verb, ui_esc(o->os2 ? o->os2 : o->host));
	}
}

static void on_event(void *ud, enum pkg_event ev, const char *name, const char *version,
		     const char *by, size_t nfiles)
{
	struct wd_ctx *ctx = ud;
	(void)by;
	if (ev == PKG_RECOVERED)
		ui_warn(ctx, "an interrupted run on this volume was finished or undone first\n");
	else if (ev == PKG_UPGRADED && !ctx->json)
		ui_say(ctx, "Reinstalled %s %s (%s).\n", ui_esc(name), ui_esc(version),
		       ui_count(nfiles, "file"));
}

static void json_done(struct wd_ctx *ctx, const struct reinstall_done *u, size_t damaged)
{
	json_obj_begin(&ctx->j, NULL);
	json_bool(&ctx->j, "dry_run", ctx->dry_run);
	json_arr_begin(&ctx->j, "packages"); /* as install's document (docs/json.md) */
	for (size_t i = 0; i < u->npkgs; i++) {
		json_obj_begin(&ctx->j, NULL);
		json_str(&ctx->j, "action", "reinstall");
		json_str(&ctx->j, "name", u->pkgs[i].m.name);
		json_str(&ctx->j, "version", u->pkgs[i].m.version);
		json_int(&ctx->j, "file_count", (long long)u->pkgs[i].m.nfiles);
		json_obj_end(&ctx->j);
	}
	json_arr_end(&ctx->j);
	if (damaged != (size_t)-1)
		json_int(&ctx->j, "damaged_file_count", (long long)damaged);
	json_obj_end(&ctx->j);
	json_finish(&ctx->j);
}

static int reinstall(struct wd_ctx *ctx, char *const *names, size_t n,
		     struct reinstall_done *done, struct wd_err *err)
{
	struct pkg_cb cb = {.event = on_event, .plan = on_plan, .ud = ctx};
	done->names = names;
	done->n = n;
	int r = reinstall_run(ctx->s, &cb, done, err);
	if (!r && ctx->dry_run && !ctx->json)
		ui_say(ctx, "Dry run: nothing was written.\n");
	return r;
}

int cmd_reinstall(struct wd_ctx *ctx, int argc, char **argv)
{
	pkg_fold_names(argc, argv);
	if (argc < 1)
		return ui_usage(ctx, "reinstall: name at least one installed package");
	for (int i = 0; i < argc; i++)
		if (strchr(argv[i], '=') || strchr(argv[i], '/'))
			return ui_usage(ctx, "reinstall %s: name an installed package (reinstall puts "
					"back the installed version; 'warpdrv install' takes a "
					"version or a file)", argv[i]);
	struct wd_err err = {0};
	struct reinstall_done done = {0};
	int r = reinstall(ctx, argv, (size_t)argc, &done, &err);
	if (!r && ctx->json)
		json_done(ctx, &done, (size_t)-1);
	reinstall_done_free(&done);
	return r ? ui_fail(ctx, r, &err) : 0;
}

/* verify --fix [PKG]: verify, then reinstall the packages whose files
 * differ, then verify those again. Exit 0 when all is as installed after. */
int cmd_verify_fix(struct wd_ctx *ctx, const char *pkg)
{
	struct wd_err err = {0};
	struct reinstall_done done = {0};
	struct repair_damage d;
	int r = repair_find(ctx->s, pkg, &d, &err);
	if (!r && !d.n) {
		if (ctx->json)
			json_done(ctx, &done, 0);
		else
			ui_say(ctx, "Nothing to fix: every installed file is as installed.\n");
	} else if (!r) {
		if (!ctx->json) {
			ui_say(ctx, "%zu installed file%s differ%s from what was installed, in:",
			       d.nfiles, d.nfiles == 1 ? "" : "s", d.nfiles == 1 ? "s" : "");
			for (size_t i = 0; i < d.n; i++)
				ui_say(ctx, " %s", ui_esc(d.names[i]));
			ui_say(ctx, "\n");
		}
		r = reinstall(ctx, d.names, d.n, &done, &err);
	}
	if (!r && d.n && !ctx->dry_run) {
		/* what was put back is checked as verify checks it */
		struct repair_damage still;
		r = repair_find(ctx->s, pkg, &still, &err);
		if (!r && still.n)
			r = wd_err_set(&err, WD_ETRUST, "%zu installed file%s still differ%s after the "
				       "reinstall ('warpdrv verify' names them)", still.nfiles,
				       still.nfiles == 1 ? "" : "s", still.nfiles == 1 ? "s" : "");
		repair_damage_free(&still);
		if (!r && ctx->json)
			json_done(ctx, &done, d.nfiles);
		else if (!r)
			ui_say(ctx, "Fixed: every installed file is as installed again.\n");
	} else if (!r && d.n && ctx->json) {
		json_done(ctx, &done, d.nfiles);
	}
	repair_damage_free(&d);
	reinstall_done_free(&done);
	return r ? ui_fail(ctx, r, &err) : 0;
}
