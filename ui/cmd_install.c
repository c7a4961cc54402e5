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

/* The catalog entry an argument names (NULL for a .wdp file, *err clear): a
 * name at the newest version the subscription allows (catalog/versions.h),
 * PKG=VERSION at that version from whichever repository has it. */
static const struct index_entry *arg_entry(struct db *db, const struct keyring *kr,
					   const struct catalog *cat, const char *arg,
					   const struct repo **from, struct wd_err *err)
{
	size_t n = strlen(arg);
	if (strchr(arg, '/') || (n > 4 && !strcmp(arg + n - 4, ".wdp")))
		return NULL;
	const char *eq = strchr(arg, '=');
	if (!eq)
		return catalog_pick_db(db, kr, cat, arg, from, err);
	char *name = wd_xstrndup(arg, (size_t)(eq - arg));
	const struct index_entry *e = catalog_find_version(cat, name, eq + 1, from);
	if (!e)
		wd_err_set(err, WD_EFAIL, "no package %s at version %s in the repositories "
			   "('warpdrv info %s' lists its versions)", name, eq + 1, name);
	free(name);
	return e;
}

/* A package file, or the entry arg_entry names, read; PKG=VERSION may
 * replace a newer version. */
static int load_arg(struct wd_ctx *ctx, struct db *db, const struct keyring *kr,
		    const struct catalog *cat, const char *arg, struct package *p,
		    struct wd_err *err)
{
	const struct repo *from;
	wd_err_clear(err);
	const struct index_entry *e = arg_entry(db, kr, cat, arg, &from, err);
	if (!e && !err->code)
		return session_load(ctx->s, arg, p, err);
	/* the subscription's refusal before anything is downloaded */
	int r = e ? catalog_gate_entry(db, kr, cat, e, err) : -err->code;
	if (!r)
		r = catalog_fetch(from, e, kr, p, err);
	if (!r && strchr(arg, '='))
		p->downgrade_ok = true;
	return r;
}

/* install PKG=VERSION below the installed version: each such plan shown
 * (as text), counted for the question. */
struct downgrades {
	struct wd_ctx *ctx;
	int n;
	char first[160]; /* "pcntnd 4.13 goes below the installed 4.14" */
};

static void note_downgrade(void *ud, const struct txn_plan *plan)
{
	struct downgrades *d = ud;
	if (!plan->upgrade_from || !version_is_downgrade(plan->upgrade_from, plan->version))
		return;
	if (!d->ctx->json)
		pkg_show_plan(d->ctx, plan);
	if (!d->n++)
		snprintf(d->first, sizeof d->first, "%s %s goes below the installed %s", plan->name,
			 plan->version, plan->upgrade_from);
}

/* A downgrade is a change the user may not expect: shown and asked first,
 * as remove and setup ask (ui_confirm: --yes, or refused with no terminal). */
static int confirm_downgrades(struct wd_ctx *ctx, struct volume *v, struct db *db, bool have,
			      const struct package *pkgs, int n, struct wd_err *err)
{
	bool named = false;
	for (int i = 0; i < n; i++)
		named |= pkgs[i].downgrade_ok;
	if (ctx->dry_run || ctx->yes || !named)
		return 0;
	struct downgrades d = {.ctx = ctx};
	struct pkg_cb preview = {.plan = note_downgrade, .ud = &d};
	int r = install_preplan(v, db, have, pkgs, (size_t)n, &preview, err);
	if (r || !d.n)
		return r;
	return ui_confirm(ctx, d.n == 1 ? "Downgrade this package?" : "Downgrade these packages?",
			  err, "install: %s%s", d.first, d.n > 1 ? " (and more)" : "");
}

/* --dry-run downloads nothing: a package that would be downloaded is named
 * with its size (from the signed index) instead of its files. */
static bool dry_download(struct wd_ctx *ctx, struct render *rd, struct db *db,
			 const struct keyring *kr, const struct catalog *cat, const char *arg)
{
	const struct repo *from;
	struct wd_err ignore = {0};
	const struct index_entry *e = ctx->dry_run ? arg_entry(db, kr, cat, arg, &from, &ignore)
						   : NULL;
	if (!e || !catalog_would_download(from, e))
		return false;
	const char *where = from->name ? from->name : from->url;
	if (ctx->json) {
		rd->dry_run = true;
		if (!rd->open) {
			rd->open = true;
			json_obj_begin(&ctx->j, NULL);
			json_bool(&ctx->j, "dry_run", true);
			json_arr_begin(&ctx->j, "plans");
		}
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
	return true;
}

int cmd_install(struct wd_ctx *ctx, int argc, char **argv)
{
	pkg_fold_names(argc, argv);
	if (argc < 1)
		return ui_usage(ctx, "install: name at least one package or .wdp file");
	struct wd_err err = {0};
	struct volume *v;
	const struct keyring *kr;
	struct catalog *cat;
	struct db *db;
	struct package *pkgs = wd_xcalloc((size_t)argc, sizeof *pkgs);
	int loaded = 0, n = 0;
	struct render rd;
	struct pkg_cb cb = pkg_render(&rd, ctx, "installed");
	int r = session_volume(ctx->s, &v, &err);
	if (r) {
		free(pkgs);
		return ui_fail(ctx, r, &err);
	}
	if (!(r = session_keyring(ctx->s, &kr, &err)))
		r = session_catalog(ctx->s, true, &cat, &err);
	if (!r)
		r = pkg_need_repository(cat, argc, argv, &err);
	bool have = false;
	if (!r) /* read only, for the subscription's choice, its gate and the plans */
		r = session_db(ctx->s, SESSION_DB_PLAIN, &db, &have, &err);
	for (; !r && loaded < argc; loaded++)
		if (!dry_download(ctx, &rd, db, kr, cat, argv[loaded]) &&
		    !(r = load_arg(ctx, db, kr, cat, argv[loaded], &pkgs[n], &err)))
			n++;
	if (!r)
		r = install_check_entitlements(db, kr, cat, pkgs, (size_t)n, &err);
	if (!r)
		r = confirm_downgrades(ctx, v, db, have, pkgs, n, &err);
	if (!r)
		r = install_preplan(v, db, have, pkgs, (size_t)n, &cb, &err);
	if (!r && !ctx->dry_run)
		r = install_packages(v, cat, pkgs, (size_t)n, &cb, &err);
	if (!r)
		pkg_render_close(&rd);
	for (int i = 0; i < n; i++)
		package_free(&pkgs[i]);
	free(pkgs);
	return r ? ui_fail(ctx, r, &err) : 0;
}
