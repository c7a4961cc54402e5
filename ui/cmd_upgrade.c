/* warpdrv upgrade [PKG...]: each installed package (or each named) to the
 * newest version any repository offers that the subscription allows, all in
 * one transaction (installer/upgrade.h), after showing the plan and asking
 * as setup does. Held packages stay; nothing to do is exit 0. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "installer/upgrade.h"
#include "ui/commands.h"
#include "ui/pkgutil.h"

struct upgrade_run {
	struct wd_ctx *ctx;
	struct upgrade_set set; /* installer/upgrade.h */
	bool confirmed; /* the user said yes to the downloads (and the plan they make) */
	size_t ndownload; /* packages to download, not done under --dry-run */
	unsigned long long download_bytes;
};

/* What stays as it is, and why: held, up to date, or what a renewal adds. */
static void tell_choice(struct wd_ctx *ctx, const struct upgrade_choice *c)
{
	if (ctx->json)
		return;
	if (c->held && c->to)
		ui_say(ctx, "%s %s is held: %s is not installed ('warpdrv unhold %s' lets it "
		       "upgrade).\n", ui_esc(c->name), ui_esc(c->installed), ui_esc(c->to->version),
		       ui_esc(c->name));
	else if (c->held)
		ui_say(ctx, "%s %s is held.\n", ui_esc(c->name), ui_esc(c->installed));
	if (c->newest && c->why_not)
		ui_say(ctx, "%s: %s is not offered: %s\n", ui_esc(c->name),
		       ui_esc(c->newest->version), ui_esc(c->why_not));
	if (!c->held && !c->to && !c->newest)
		ui_say(ctx, "%s %s is the newest version.\n", ui_esc(c->name),
		       ui_esc(c->installed));
}

static void json_choices(struct wd_ctx *ctx, const struct upgrade_run *u)
{
	json_arr_begin(&ctx->j, "packages");
	for (size_t i = 0; i < u->set.nc; i++) {
		const struct upgrade_choice *c = &u->set.c[i];
		json_obj_begin(&ctx->j, NULL);
		json_str(&ctx->j, "name", c->name);
		json_str(&ctx->j, "installed_version", c->installed);
		json_bool(&ctx->j, "held", c->held);
		json_str(&ctx->j, "upgrade_to", c->to && !c->held ? c->to->version : NULL);
		json_str(&ctx->j, "repository", c->to ? c->to_from->url : NULL);
		json_str(&ctx->j, "not_offered", c->newest ? c->newest->version : NULL);
		json_str(&ctx->j, "why_not", c->newest ? c->why_not : NULL);
		json_obj_end(&ctx->j);
	}
	json_arr_end(&ctx->j);
}

/* ui_confirm's rule, for upgrade's two questions. */
static int ask(struct wd_ctx *ctx, const char *question, struct wd_err *err)
{
	return ui_confirm(ctx, question, err, "upgrade changes the volume");
}

static int confirm(struct upgrade_run *u, struct wd_err *err)
{
	return u->confirmed ? 0 : ask(u->ctx, "Apply these changes?", err);
}

/* The plan as the catalog tells it (the signed index gives each package's
 * size and hash), shown and agreed to before anything is downloaded: a "no",
 * no terminal without --yes, or --dry-run leaves the cache folder as it was.
 * *stop: nothing more to do (a dry run that would download). */
static int before_downloads(struct upgrade_run *u, bool *stop, struct wd_err *err)
{
	struct wd_ctx *ctx = u->ctx;
	*stop = false;
	for (size_t i = 0; i < u->set.nc; i++) {
		const struct upgrade_choice *c = &u->set.c[i];
		if (!c->held && c->to && catalog_would_download(c->to_from, c->to)) {
			u->ndownload++;
			u->download_bytes += c->to->size;
		}
	}
	if (!u->ndownload)
		return 0;
	for (size_t i = 0; !ctx->json && i < u->set.nc; i++) {
		const struct upgrade_choice *c = &u->set.c[i];
		if (c->held || !c->to)
			continue;
		bool dl = catalog_would_download(c->to_from, c->to);
		ui_say(ctx, "Upgrade %s %s -> %s", ui_esc(c->name), ui_esc(c->installed),
		       ui_esc(c->to->version));
		if (dl)
			ui_say(ctx, " (download %llu bytes from %s)", (unsigned long long)c->to->size,
			       ui_esc(c->to_from->name ? c->to_from->name : c->to_from->url));
		ui_say(ctx, "\n");
	}
	if (ctx->dry_run) {
		*stop = true;
		ui_say(ctx, "Dry run: nothing downloaded or written (%zu package%s, %llu bytes, "
		       "would be downloaded first).\n", u->ndownload, u->ndownload == 1 ? "" : "s",
		       u->download_bytes);
		return 0;
	}
	int r = ask(ctx, "Download these packages and upgrade?", err);
	if (!r)
		u->confirmed = true;
	return r;
}

static void on_plan(void *ud, const struct txn_plan *plan)
{
	struct wd_ctx *ctx = ud;
	if (!ctx->json)
		pkg_show_plan(ctx, plan);
}

static void on_event(void *ud, enum pkg_event ev, const char *name, const char *version,
		     const char *by, size_t nfiles)
{
	struct wd_ctx *ctx = ud;
	(void)by;
	if (ev == PKG_RECOVERED)
		ui_warn(ctx, "an interrupted run on this volume was finished or undone first\n");
	else if (ev == PKG_UPGRADED)
		ui_say(ctx, "Upgraded %s to %s (%s).\n", ui_esc(name), ui_esc(version),
		       ui_count(nfiles, "file"));
}

/* The boot files' diff is news even after the downloads were agreed to:
 * the question is asked again. */
static void on_boot_plan(void *ud, const struct setup_view *pv)
{
	struct upgrade_run *u = ud;
	struct wd_ctx *ctx = u->ctx;
	if (!ctx->json)
		ui_show_diff(ctx, pv->diff, pv->diff_len);
	for (size_t i = 0; !ctx->json && i < pv->nnotes; i++)
		ui_say(ctx, "note: %s\n", ui_esc_text(pv->notes[i], strlen(pv->notes[i])));
	u->confirmed = false;
}

static int on_confirm(void *ud, struct wd_err *err)
{
	return confirm(ud, err);
}

static int plan_and_apply(struct upgrade_run *u, struct wd_err *err)
{
	struct wd_ctx *ctx = u->ctx;
	struct upgrade_apply_cb cb = {.pkg = {.event = on_event, .plan = on_plan, .ud = ctx},
				      .boot_plan = on_boot_plan, .confirm = on_confirm, .ud = u};
	struct upgrade_outcome out;
	int r = upgrade_apply(&u->set, ctx->dry_run, &cb, &out, err);
	if (!r && out.applied && out.boot)
		ui_say(ctx, "CONFIG.SYS and PROTOCOL.INI rewritten: generation %ld ('warpdrv "
		       "rollback' puts them back).\n", out.generation);
	if (!r && ctx->json) {
		json_obj_begin(&ctx->j, NULL);
		json_bool(&ctx->j, "dry_run", ctx->dry_run);
		json_bool(&ctx->j, "upgraded", !ctx->dry_run && u->set.npkgs);
		json_int(&ctx->j, "download_count", (long long)u->ndownload);
		json_choices(ctx, u);
		json_obj_end(&ctx->j);
		json_finish(&ctx->j);
	} else if (!r && !u->set.npkgs) {
		ui_say(ctx, "Nothing to upgrade.\n");
	}
	return r;
}

static int run(struct upgrade_run *u, char **names, size_t n, struct wd_err *err)
{
	int r = upgrade_prepare(u->ctx->s, names, n, &u->set, err);
	bool stop = false;
	if (!r)
		r = before_downloads(u, &stop, err);
	if (!r && stop) {
		for (size_t i = 0; i < u->set.nc; i++)
			tell_choice(u->ctx, &u->set.c[i]);
		if (u->ctx->json) {
			json_obj_begin(&u->ctx->j, NULL);
			json_bool(&u->ctx->j, "dry_run", true);
			json_bool(&u->ctx->j, "upgraded", false);
			json_int(&u->ctx->j, "download_count", (long long)u->ndownload);
			json_int(&u->ctx->j, "download_bytes", (long long)u->download_bytes);
			json_choices(u->ctx, u);
			json_obj_end(&u->ctx->j);
			json_finish(&u->ctx->j);
		}
		return 0;
	}
	for (size_t i = 0; !r && i < u->set.nc; i++)
		tell_choice(u->ctx, &u->set.c[i]);
	if (!r)
		r = upgrade_fetch(&u->set, err);
	return r ? r : plan_and_apply(u, err);
}

int cmd_upgrade(struct wd_ctx *ctx, int argc, char **argv)
{
	struct wd_err err = {0};
	struct upgrade_run u = {.ctx = ctx};
	pkg_fold_names(argc, argv);
	int r = run(&u, argv, (size_t)argc, &err);
	upgrade_set_free(&u.set);
	return r ? ui_fail(ctx, r, &err) : 0;
}
