/* warpdrv reinstall PKG... and verify --fix: the installed version of each
 * package read again from its repository (signatures and hashes checked),
 * and every file of it put back in one transaction (installer/repair.h).
 * Like install, it writes no configuration file and does not ask;
 * --dry-run shows the plan. */
#include <stdlib.h>
#include <string.h>

#include "catalog/versions.h"
#include "installer/repair.h"
#include "state/installed.h"
#include "ui/commands.h"
#include "session/session.h"
#include "ui/pkgutil.h"

struct reinstall_run {
	struct wd_ctx *ctx;
	struct volume *v;       /* the session's */
	const struct keyring *kr;
	struct catalog *cat;
	struct package *pkgs;
	size_t npkgs;
};

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

/* Each name's installed version, read from the repository that has it. */
static int load_installed(struct reinstall_run *u, char *const *names, size_t n,
			  struct wd_err *err)
{
	struct db *db;
	bool have;
	int r = session_db(u->ctx->s, SESSION_DB_RECOVER, &db, &have, err);
	u->pkgs = wd_xcalloc(n + 1, sizeof *u->pkgs);
	for (size_t i = 0; !r && i < n; i++) {
		char *ver = NULL;
		const struct repo *from;
		if (have && (r = installed_version(db, names[i], &ver, err)))
			break;
		if (!ver && !catalog_find(u->cat, names[i], &from))
			r = wd_err_set(err, WD_EFAIL, "no package named %s ('warpdrv list' shows what "
				       "is on offer, 'warpdrv list --installed' what is installed)",
				       names[i]);
		else if (!ver)
			r = wd_err_set(err, WD_EFAIL, "%s is not installed, so there is nothing to "
				       "reinstall ('warpdrv install %s' installs it)", names[i],
				       names[i]);
		const struct index_entry *e = r ? NULL : catalog_find_version(u->cat, names[i], ver,
									       &from);
		if (!r && !e)
			r = wd_err_set(err, WD_EFAIL, "%s %s is installed, and no repository offers "
				       "version %s any more, so its files cannot be put back from "
				       "it: add the repository that has it ('warpdrv repo add'), or "
				       "'warpdrv upgrade %s' to a version on offer", names[i], ver,
				       ver, names[i]);
		if (!r && catalog_would_download(from, e) && u->ctx->dry_run)
			r = wd_err_set(err, WD_EFAIL, "reinstall --dry-run downloads nothing, and %s "
				       "%s (%llu bytes) is not in the cache: run it without "
				       "--dry-run", e->name, e->version, (unsigned long long)e->size);
		if (!r && !(r = catalog_fetch(from, e, u->kr, &u->pkgs[u->npkgs], err)))
			u->npkgs++;
		free(ver);
	}
	if (!r)
		r = install_check_entitlements(have ? db : NULL, u->kr, u->cat, u->pkgs,
					       u->npkgs, err);
	return r;
}

static void run_free(struct reinstall_run *u)
{
	for (size_t i = 0; i < u->npkgs; i++)
		package_free(&u->pkgs[i]);
	free(u->pkgs);
}

static void json_done(struct wd_ctx *ctx, const struct reinstall_run *u, size_t damaged)
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

/* Opens the volume, the keys and the catalog (downloads go to the cache). */
static int run_open(struct reinstall_run *u, struct wd_err *err)
{
	int r = session_volume(u->ctx->s, &u->v, err);
	if (!r)
		r = session_keyring(u->ctx->s, &u->kr, err);
	if (!r)
		r = session_catalog(u->ctx->s, true, &u->cat, err);
	if (!r)
		r = catalog_need_repository(u->cat, err);
	return r;
}

static int reinstall(struct reinstall_run *u, char *const *names, size_t n, struct wd_err *err)
{
	struct pkg_cb cb = {.event = on_event, .plan = on_plan, .ud = u->ctx};
	int r = load_installed(u, names, n, err);
	if (!r)
		r = reinstall_preplan(u->v, u->pkgs, u->npkgs, u->ctx->dry_run ? &cb : NULL, err);
	if (!r && !u->ctx->dry_run)
		r = reinstall_packages(u->v, u->cat, u->pkgs, u->npkgs, &cb, err);
	if (!r && u->ctx->dry_run && !u->ctx->json)
		ui_say(u->ctx, "Dry run: nothing was written.\n");
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
	struct reinstall_run u = {.ctx = ctx};
	int r = run_open(&u, &err);
	if (!r)
		r = reinstall(&u, argv, (size_t)argc, &err);
	if (!r && ctx->json)
		json_done(ctx, &u, (size_t)-1);
	run_free(&u);
	return r ? ui_fail(ctx, r, &err) : 0;
}

/* repair_damaged under the volume's shared lock, as verify reads: the rows
 * and the files agree (a removal running beside it is waited for). The lock
 * is let go before any reinstall takes the volume's own. */
static int damaged(struct volume *v, struct db *db, const char *pkg, char ***names, size_t *n,
		   size_t *nfiles, struct wd_err *err)
{
	int lock = -1;
	int r = txn_read_lock(v, &lock, err);
	if (!r)
		r = repair_damaged(v, db, pkg, names, n, nfiles, err);
	txn_read_unlock(lock);
	return r;
}

/* verify --fix [PKG]: verify, then reinstall the packages whose files
 * differ, then verify those again. Exit 0 when all is as installed after. */
int cmd_verify_fix(struct wd_ctx *ctx, const char *pkg)
{
	struct wd_err err = {0};
	struct reinstall_run u = {.ctx = ctx};
	struct db *db;
	bool have = false;
	char **names = NULL;
	size_t n = 0, nfiles = 0;
	int r = session_boot_volume(ctx->s, &u.v, &err);
	if (!r)
		/* RECOVER whatever verify declares: verify --fix comes here too */
		r = session_db(ctx->s, SESSION_DB_RECOVER, &db, &have, &err);
	if (!r && have)
		r = installed_db_intact(db, &err);
	if (!r && pkg) {
		char *ver = NULL;
		if (!have || (!(r = installed_version(db, pkg, &ver, &err)) && !ver))
			r = wd_err_set(&err, WD_EFAIL, "%s is not installed", pkg);
		free(ver);
	}
	if (!r && have)
		r = damaged(u.v, db, pkg, &names, &n, &nfiles, &err);
	if (!r && !n) {
		if (ctx->json)
			json_done(ctx, &u, 0);
		else
			ui_say(ctx, "Nothing to fix: every installed file is as installed.\n");
	} else if (!r) {
		if (!ctx->json) {
			ui_say(ctx, "%zu installed file%s differ%s from what was installed, in:", nfiles,
			       nfiles == 1 ? "" : "s", nfiles == 1 ? "s" : "");
			for (size_t i = 0; i < n; i++)
				ui_say(ctx, " %s", ui_esc(names[i]));
			ui_say(ctx, "\n");
		}
		if (!(r = run_open(&u, &err)))
			r = reinstall(&u, names, n, &err);
	}
	if (!r && n && !ctx->dry_run) {
		/* what was put back is checked as verify checks it */
		char **still = NULL;
		size_t ns = 0, nf2 = 0;
		r = damaged(u.v, db, pkg, &still, &ns, &nf2, &err);
		if (!r && ns)
			r = wd_err_set(&err, WD_ETRUST, "%zu installed file%s still differ%s after the "
				       "reinstall ('warpdrv verify' names them)", nf2, nf2 == 1 ? "" : "s",
				       nf2 == 1 ? "s" : "");
		repair_names_free(still, ns);
		if (!r && ctx->json)
			json_done(ctx, &u, nfiles);
		else if (!r)
			ui_say(ctx, "Fixed: every installed file is as installed again.\n");
	} else if (!r && n && ctx->json) {
		json_done(ctx, &u, nfiles);
	}
	repair_names_free(names, n);
	run_free(&u);
	return r ? ui_fail(ctx, r, &err) : 0;
}
