/* warpdrv history: the configuration generations, and what was installed
 * and removed on this volume, and when. */
#include <string.h>

#include "catalog/version.h"
#include "common/buf.h"
#include "installer/query.h"
#include "ui/commands.h"
#include "ui/pkgutil.h"

static int show_generations(struct wd_ctx *ctx, struct wd_err *err)
{
	struct generation *g;
	size_t n;
	int r = query_generations(ctx->s, &g, &n, err);
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
			json_time(&ctx->j, "at", g[i].at);
			json_str(&ctx->j, "command", g[i].command);
			json_mixed(&ctx->j, "summary", g[i].summary);
			json_obj_end(&ctx->j);
		} else {
			ui_say(ctx, "%4ld  %s  %-16s %s\n", g[i].n, ui_local_time(g[i].at),
			       ui_esc(g[i].command), ui_mixed(ctx, g[i].summary));
		}
	}
	if (ctx->json)
		json_arr_end(&ctx->j);
	else if (n)
		ui_say(ctx, "\nPackages:\n");
	generation_list_free(g, n);
	return 0;
}

static bool has_version(const char *v)
{
	return v && *v && strcmp(v, "-");
}

/* What a row did, for the text: "testpkg 1.0 -> 1.1", "setup (mmlem,
 * acpi-psd)", "testpkg 1.0". */
static const char *what_of(const struct history_row *x)
{
	static struct wd_buf b;
	b.len = 0;
	if (x->command)
		wd_buf_addf(&b, "%s (%s)", ui_esc(x->command),
			    ui_esc(x->packages ? x->packages : x->package));
	else if (has_version(x->from_version) && has_version(x->version))
		wd_buf_addf(&b, "%s %s -> %s", ui_esc(x->package), ui_esc(x->from_version),
			    ui_esc(x->version));
	else if (has_version(x->version))
		wd_buf_addf(&b, "%s %s", ui_esc(x->package), ui_esc(x->version));
	else
		wd_buf_adds(&b, ui_esc(x->package));
	return wd_buf_cstr(&b);
}

/* The row's action: the database records a change of version as an
 * upgrade; one that went down is told as the downgrade it was. */
static const char *action_of(const struct history_row *x)
{
	if (x->action && !strcmp(x->action, "upgrade") && has_version(x->from_version) &&
	    has_version(x->version) && version_is_downgrade(x->from_version, x->version))
		return "downgrade";
	return x->action;
}

static void json_history_row(struct wd_ctx *ctx, const struct history_row *x)
{
	struct json *j = &ctx->j;
	json_obj_begin(j, NULL);
	json_int(j, "id", x->id);
	json_time(j, "at", x->at);
	json_str(j, "action", action_of(x));
	json_str(j, "package", x->package);
	json_str(j, "version", has_version(x->version) ? x->version : NULL);
	json_str(j, "from_version", has_version(x->from_version) ? x->from_version : NULL);
	json_str(j, "command", x->command);
	if (x->packages) {
		json_arr_begin(j, "packages");
		for (const char *p = x->packages; *p;) {
			size_t n = strcspn(p, ",");
			json_strn(j, NULL, p, n);
			p += n;
			while (*p == ',' || *p == ' ')
				p++;
		}
		json_arr_end(j);
	} else {
		json_null(j, "packages");
	}
	json_obj_end(j);
}

int cmd_history(struct wd_ctx *ctx, int argc, char **argv)
{
	(void)argv;
	if (argc)
		return ui_usage(ctx, "history takes no arguments");
	struct wd_err err = {0};
	struct history_view hv;
	int r = query_history(ctx->s, &hv, &err);
	if (!hv.opened)
		return ui_fail(ctx, r, &err);
	if (ctx->json)
		json_obj_begin(&ctx->j, NULL);
	if (!r && hv.have)
		r = show_generations(ctx, &err);
	else if (ctx->json) {
		/* no database: the same keys, empty */
		json_arr_begin(&ctx->j, "generations");
		json_arr_end(&ctx->j);
	}
	if (ctx->json)
		json_arr_begin(&ctx->j, "history");
	size_t n = 0;
	for (; !r && n < hv.n; n++) {
		const struct history_row *x = &hv.rows[n];
		if (ctx->json) {
			json_history_row(ctx, x);
		} else {
			ui_say(ctx, "%4lld  %s  %s %s\n", x->id, ui_local_time(x->at),
			       ui_esc(action_of(x)), what_of(x));
		}
	}
	history_view_free(&hv);
	if (ctx->json) {
		json_arr_end(&ctx->j);
		json_obj_end(&ctx->j);
		json_finish(&ctx->j);
	} else if (!r && !n) {
		ui_say(ctx, "No history on this volume yet.\n");
	}
	return r ? ui_fail(ctx, r, &err) : 0;
}
