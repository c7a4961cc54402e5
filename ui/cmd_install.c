/* warpdrv install PKG|FILE.wdp...: every check first (signatures, hashes,
 * entitlements, conflicts), then one transaction per package
 * (installer/install.h); and what install and remove show. */
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "catalog/version.h"
#include "catalog/versions.h"
#include "installer/install.h"
#include "ui/commands.h"
#include "ui/pkgutil.h"

static const char *op_verb(const struct txn_op *o)
{
	switch (o->kind) {
	case TXN_MKDIR: return "create folder";
	case TXN_PUT: return o->kept ? "replace (original kept)" : "add";
	case TXN_DELETE: return "delete";
	case TXN_REPLACE: return "replace the old version's";
	case TXN_RETIRE: return o->kept ? "delete; put back the original" : "delete the old version's";
	default: return "put back the original";
	}
}

/* What a change of an installed version is called: up or down. */
static const char *change_word(const char *from, const char *to, bool done)
{
	if (version_is_downgrade(from, to))
		return done ? "Downgraded" : "Downgrade";
	return done ? "Upgraded" : "Upgrade";
}

static const char *change_action(const char *from, const char *to)
{
	return version_is_downgrade(from, to) ? "downgrade" : "upgrade";
}

void pkg_show_plan(struct wd_ctx *ctx, const struct txn_plan *plan)
{
	if (ctx->json) {
		json_obj_begin(&ctx->j, NULL);
		json_str(&ctx->j, "action", plan->upgrade_from ? change_action(plan->upgrade_from,
									       plan->version)
					    : plan->install ? "install" : "remove");
		json_str(&ctx->j, "name", plan->name);
		json_str(&ctx->j, "version", plan->version);
		if (plan->upgrade_from)
			json_str(&ctx->j, "from_version", plan->upgrade_from);
		json_arr_begin(&ctx->j, "steps");
		for (size_t i = 0; i < plan->nops; i++) {
			json_obj_begin(&ctx->j, NULL);
			json_str(&ctx->j, "do", op_verb(&plan->ops[i]));
			json_str(&ctx->j, "path", plan->ops[i].os2 ? plan->ops[i].os2
								  : plan->ops[i].host);
			json_obj_end(&ctx->j);
		}
		json_arr_end(&ctx->j);
		json_obj_end(&ctx->j);
		return;
	}
	if (plan->upgrade_from)
		ui_say(ctx, "%s %s %s -> %s:\n", change_word(plan->upgrade_from, plan->version, false),
		       ui_esc(plan->name), ui_esc(plan->upgrade_from), ui_esc(plan->version));
	else
		ui_say(ctx, "%s %s %s:\n", plan->install ? "Install" : "Remove", ui_esc(plan->name),
		       ui_esc(plan->version));
	for (size_t i = 0; i < plan->nops; i++)
		ui_say(ctx, "  %-24s %s\n", op_verb(&plan->ops[i]),
		       ui_esc(plan->ops[i].os2 ? plan->ops[i].os2 : plan->ops[i].host));
}

/* Renders what install and remove tell: text as it happens, or the items
 * of the --json document's list (opened at the first item). */
static void render_open(struct render *rd)
{
	if (rd->open || !rd->ctx->json)
		return;
	rd->open = true;
	json_obj_begin(&rd->ctx->j, NULL);
	json_bool(&rd->ctx->j, "dry_run", rd->dry_run);
	json_arr_begin(&rd->ctx->j, rd->dry_run ? "plans" : "packages");
}

/* Ends the --json document (an empty list when nothing was told). */
void pkg_render_close(struct render *rd)
{
	if (!rd->ctx->json)
		return;
	render_open(rd);
	json_arr_end(&rd->ctx->j);
	json_obj_end(&rd->ctx->j);
	json_finish(&rd->ctx->j);
}

static void on_event(void *ud, enum pkg_event ev, const char *name, const char *version,
		     const char *by, size_t nfiles)
{
	struct render *rd = ud;
	struct wd_ctx *ctx = rd->ctx;
	switch (ev) {
	case PKG_RECOVERED:
		ui_warn(ctx, "an interrupted run on this volume was finished or undone first\n");
		return;
	case PKG_ALREADY:
		ui_say(ctx, "%s %s is already installed.\n", ui_esc(name), ui_esc(version));
		return;
	case PKG_REPLACED:
		ui_say(ctx, "Removed %s %s (replaced by %s).\n", ui_esc(name), ui_esc(version),
		       ui_esc(by));
		return;
	case PKG_INSTALLED:
	case PKG_REMOVED:
	case PKG_UPGRADED:
		break;
	}
	if (!ctx->json) {
		if (ev == PKG_UPGRADED && by)
			ui_say(ctx, "%s %s %s -> %s (%s).\n", change_word(by, version, true),
			       ui_esc(name), ui_esc(by), ui_esc(version), ui_count(nfiles, "file"));
		else if (ev == PKG_UPGRADED)
			ui_say(ctx, "Upgraded %s to %s (%s).\n", ui_esc(name), ui_esc(version),
			       ui_count(nfiles, "file"));
		else if (ev == PKG_INSTALLED)
			ui_say(ctx, "Installed %s %s (%s).\n", ui_esc(name), ui_esc(version),
			       ui_count(nfiles, "file"));
		else
			ui_say(ctx, "Removed %s %s.\n", ui_esc(name), ui_esc(version));
		return;
	}
	render_open(rd);
	json_obj_begin(&ctx->j, NULL);
	json_str(&ctx->j, "action", ev == PKG_UPGRADED ? change_action(by, version)
				    : ev == PKG_INSTALLED ? "install" : "remove");
	json_str(&ctx->j, "name", name);
	json_str(&ctx->j, "version", version);
	if (ev == PKG_UPGRADED && by)
		json_str(&ctx->j, "from_version", by);
	if (ev == PKG_INSTALLED || ev == PKG_UPGRADED)
		json_int(&ctx->j, "file_count", (long long)nfiles);
	json_obj_end(&ctx->j);
}

static void on_plan(void *ud, const struct txn_plan *plan)
{
	struct render *rd = ud;
	render_open(rd);
	pkg_show_plan(rd->ctx, plan);
}

struct pkg_cb pkg_render(struct render *rd, struct wd_ctx *ctx, const char *list)
{
	*rd = (struct render){.ctx = ctx, .list = list, .dry_run = ctx->dry_run};
	return (struct pkg_cb){.event = on_event, .plan = ctx->dry_run ? on_plan : NULL, .ud = rd};
}

/* --dry-run downloads nothing: a package that would be downloaded is named
 * with its size (from the signed index) instead of its files. */
static void on_download(void *ud, const struct index_entry *e, const char *where)
{
	struct render *rd = ud;
	struct wd_ctx *ctx = rd->ctx;
	if (ctx->json) {
		rd->dry_run = true;
		render_open(rd);
		json_obj_begin(&ctx->j, NULL);
		json_str(&ctx->j, "action", "download");
		json_str(&ctx->j, "name", e->name);
		json_str(&ctx->j, "version", e->version);
		json_int(&ctx->j, "size", (long long)e->size);
		json_str(&ctx->j, "repository", where);
		json_obj_end(&ctx->j);
	} else {
		ui_say(ctx, "Install %s %s: download %llu bytes from %s first (not done: --dry-run "
		       "downloads nothing)\n", ui_esc(e->name), ui_esc(e->version),
		       (unsigned long long)e->size, ui_esc(where));
	}
}

/* A downgrade's plan, shown (as text) before the question. */
static void on_downgrade(void *ud, const struct txn_plan *plan)
{
	struct render *rd = ud;
	if (!rd->ctx->json)
		pkg_show_plan(rd->ctx, plan);
}

static bool on_yes(void *ud)
{
	struct render *rd = ud;
	return rd->ctx->yes;
}

int cmd_install(struct wd_ctx *ctx, int argc, char **argv)
{
	pkg_fold_names(argc, argv);
	if (argc < 1)
		return ui_usage(ctx, "install: name at least one package or .wdp file");
	struct wd_err err = {0};
	struct render rd;
	struct pkg_cb cb = pkg_render(&rd, ctx, "installed");
	cb.download = on_download;
	cb.downgrade = on_downgrade;
	cb.yes = on_yes;
	int r = install_run(ctx->s, argv, argc, &cb, &err);
	if (!r)
		pkg_render_close(&rd);
	return r ? ui_fail(ctx, r, &err) : 0;
}
