/* warpdrv history: the configuration generations, and what was installed
 * and removed on this volume, and when. */
#include "installer/generation.h"
#include "ui/commands.h"
#include "ui/pkgutil.h"

static int show_generations(struct wd_ctx *ctx, struct db *db, struct wd_err *err)
{
	struct generation *g;
	size_t n;
	int r = generation_list(db, &g, &n, err);
	if (r)
		return r;
	if (ctx->json)
		json_arr_begin(&ctx->j, "generations");
	else if (n)
		ui_say(ctx, "Configuration generations ('warpdrv rollback GEN' puts CONFIG.SYS and "
		       "PROTOCOL.INI back as they were before one):\n");
	for (size_t i = 0; i < n; i++) {
		if (ctx->json) {
			json_obj_begin(&ctx->j, NULL);
			json_int(&ctx->j, "generation", g[i].n);
			json_str(&ctx->j, "at", g[i].at);
			json_str(&ctx->j, "command", g[i].command);
			json_str(&ctx->j, "summary", g[i].summary);
			json_obj_end(&ctx->j);
		} else {
			ui_say(ctx, "%4ld  %s  %-16s %s\n", g[i].n, g[i].at, g[i].command, g[i].summary);
		}
	}
	if (ctx->json)
		json_arr_end(&ctx->j);
	else if (n)
		ui_say(ctx, "\nPackages:\n");
	generation_list_free(g, n);
	return 0;
}

int cmd_history(struct wd_ctx *ctx, int argc, char **argv)
{
	(void)argv;
	if (argc)
		return ui_usage(ctx, "history takes no arguments");
	struct wd_err err = {0};
	struct volume v;
	struct db db;
	bool have;
	int r = pkg_state_read(ctx, &v, &db, &have, &err);
	if (r)
		return ui_fail(ctx, r, &err);
	sqlite3_stmt *st = NULL;
	if (have)
		r = db_prepare(&db, "SELECT id, at, action, package, version FROM history "
			       "ORDER BY id", &st, &err);
	if (ctx->json)
		json_obj_begin(&ctx->j, NULL);
	if (!r && have)
		r = show_generations(ctx, &db, &err);
	else if (ctx->json) {
		/* no database: the same keys, empty */
		json_arr_begin(&ctx->j, "generations");
		json_arr_end(&ctx->j);
	}
	if (ctx->json)
		json_arr_begin(&ctx->j, "history");
	int n = 0;
	while (!r && st && sqlite3_step(st) == SQLITE_ROW) {
		n++;
		const char *at = (const char *)sqlite3_column_text(st, 1),
			   *action = (const char *)sqlite3_column_text(st, 2),
			   *pkg = (const char *)sqlite3_column_text(st, 3),
			   *ver = (const char *)sqlite3_column_text(st, 4);
		if (ctx->json) {
			json_obj_begin(&ctx->j, NULL);
			json_int(&ctx->j, "id", sqlite3_column_int64(st, 0));
			json_str(&ctx->j, "at", at);
			json_str(&ctx->j, "action", action);
			json_str(&ctx->j, "package", pkg);
			json_str(&ctx->j, "version", ver);
			json_obj_end(&ctx->j);
		} else {
			ui_say(ctx, "%4lld  %s  %-12s %s %s\n", (long long)sqlite3_column_int64(st, 0),
			       at, action, pkg, ver);
		}
	}
	sqlite3_finalize(st);
	if (ctx->json) {
		json_arr_end(&ctx->j);
		json_obj_end(&ctx->j);
		json_finish(&ctx->j);
	} else if (!r && !n) {
		ui_say(ctx, "No history on this volume yet.\n");
	}
	db_close(&db);
	volume_close(&v);
	return r ? ui_fail(ctx, r, &err) : 0;
}
