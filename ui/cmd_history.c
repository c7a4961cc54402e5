/* warpdrv history: the configuration generations, and what was installed
 * and removed on this volume, and when. */
#include "installer/generation.h"
#include "state/history.h"
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
			ui_say(ctx, "%4ld  %s  %-16s %s\n", g[i].n, ui_esc(g[i].at),
			       ui_esc(g[i].command), ui_esc(g[i].summary));
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
	struct db *db;
	bool have;
	int r = session_db(ctx->s, SESSION_DB_READ, &db, &have, &err);
	if (r)
		return ui_fail(ctx, r, &err);
	struct history_row *h = NULL;
	size_t nh = 0;
	r = history_list(have ? db : NULL, &h, &nh, &err);
	if (ctx->json)
		json_obj_begin(&ctx->j, NULL);
	if (!r && have)
		r = show_generations(ctx, db, &err);
	else if (ctx->json) {
		/* no database: the same keys, empty */
		json_arr_begin(&ctx->j, "generations");
		json_arr_end(&ctx->j);
	}
	if (ctx->json)
		json_arr_begin(&ctx->j, "history");
	size_t n = 0;
	for (; !r && n < nh; n++) {
		const struct history_row *x = &h[n];
		if (ctx->json) {
			json_obj_begin(&ctx->j, NULL);
			json_int(&ctx->j, "id", x->id);
			json_str(&ctx->j, "at", x->at);
			json_str(&ctx->j, "action", x->action);
			json_str(&ctx->j, "package", x->package);
			json_str(&ctx->j, "version", x->version);
			json_obj_end(&ctx->j);
		} else {
			ui_say(ctx, "%4lld  %s  %-12s %s %s\n", x->id, ui_esc(x->at), ui_esc(x->action),
			       ui_esc(x->package), ui_esc(x->version));
		}
	}
	history_list_free(h, nh);
	if (ctx->json) {
		json_arr_end(&ctx->j);
		json_obj_end(&ctx->j);
		json_finish(&ctx->j);
	} else if (!r && !n) {
		ui_say(ctx, "No history on this volume yet.\n");
	}
	return r ? ui_fail(ctx, r, &err) : 0;
}
