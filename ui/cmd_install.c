/* warpdrv install PKG|FILE.wdp...: every check first (signatures, hashes,
 * entitlements, conflicts), then one transaction per package. */
#include <stdlib.h>
#include <string.h>

#include "installer/txn.h"
#include "license/activation.h"
#include "ui/commands.h"
#include "ui/pkgutil.h"

static const char *op_verb(const struct txn_op *o)
{
	switch (o->kind) {
	case TXN_MKDIR: return "create folder";
	case TXN_PUT: return o->kept ? "replace (original kept)" : "add";
	case TXN_DELETE: return "delete";
	default: return "put back the original";
	}
}

void pkg_show_plan(struct wd_ctx *ctx, const struct txn_plan *plan)
{
	if (ctx->json) {
		json_obj_begin(&ctx->j, NULL);
		json_str(&ctx->j, "action", plan->install ? "install" : "remove");
		json_str(&ctx->j, "name", plan->name);
		json_str(&ctx->j, "version", plan->version);
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
	ui_say(ctx, "%s %s %s:\n", plan->install ? "Install" : "Remove", plan->name, plan->version);
	for (size_t i = 0; i < plan->nops; i++)
		ui_say(ctx, "  %-24s %s\n", op_verb(&plan->ops[i]),
		       plan->ops[i].os2 ? plan->ops[i].os2 : plan->ops[i].host);
}

/* The subscription gate for each package that needs an entitlement, with
 * the revoked key ids and the newest issue date of the indexes read now. */
static int check_all(struct db *db, const struct keyring *kr,
		     const struct catalog *cat, struct package *pkgs, int n, struct wd_err *err)
{
	const char **revoked = NULL;
	size_t nrevoked = 0;
	int newest = -1;
	for (size_t i = 0; cat && i < cat->n; i++) {
		const struct repo_index *idx = &cat->repos[i].idx;
		revoked = wd_xrealloc(revoked, (nrevoked + idx->nrevoked + 1) * sizeof *revoked);
		for (size_t k = 0; k < idx->nrevoked; k++)
			revoked[nrevoked++] = idx->revoked[k];
		if (idx->issued > newest)
			newest = idx->issued;
	}
	int r = 0;
	for (int i = 0; !r && i < n; i++) {
		if (!pkgs[i].m.entitlement)
			continue;
		r = subscription_gate(db, kr, revoked, nrevoked, newest, pkgs[i].m.entitlement,
				      pkgs[i].m.released, err);
		if (r)
			wd_err_prefix(err, "%s %s", pkgs[i].m.name, pkgs[i].m.version);
	}
	free(revoked);
	return r;
}

/* Plans every package against the volume as it is, writing nothing: the
 * --dry-run output, and the conflict checks before the lock is taken. */
static int preplan(struct wd_ctx *ctx, struct volume *v, struct package *pkgs, int n, bool show,
		   struct wd_err *err)
{
	struct db db;
	bool have;
	int r = db_open(&db, v, false, &have, err);
	if (r)
		return r;
	if (show && ctx->json) {
		json_obj_begin(&ctx->j, NULL);
		json_bool(&ctx->j, "dry_run", true);
		json_arr_begin(&ctx->j, "plans");
	}
	for (int i = 0; !r && i < n; i++) {
		struct txn_plan plan;
		bool nothing;
		r = txn_plan_install(v, &db, &pkgs[i], &plan, &nothing, err);
		if (!r && nothing && show)
			ui_say(ctx, "%s %s is already installed.\n", pkgs[i].m.name, pkgs[i].m.version);
		else if (!r && !nothing && show)
			pkg_show_plan(ctx, &plan);
		if (!r && !nothing)
			txn_plan_free(&plan);
	}
	if (!r && show && ctx->json) {
		json_arr_end(&ctx->j);
		json_obj_end(&ctx->j);
		json_finish(&ctx->j);
	}
	db_close(&db);
	return r;
}

/* Removes the installed packages p replaces, each in its own transaction. */
static int remove_replaced(struct wd_ctx *ctx, struct txn *t, const struct package *p,
			   struct wd_err *err)
{
	for (size_t i = 0; i < p->m.nreplaces; i++) {
		struct txn_plan plan;
		struct wd_err e2;
		if (txn_plan_remove(t->v, &t->db, p->m.replaces[i], &plan, &e2))
			continue; /* not installed */
		int r = txn_apply(t, &plan, err);
		if (!r)
			ui_say(ctx, "Removed %s %s (replaced by %s).\n", plan.name, plan.version,
			       p->m.name);
		txn_plan_free(&plan);
		if (r)
			return r;
	}
	return 0;
}

static int install_all(struct wd_ctx *ctx, struct volume *v, const struct catalog *cat,
		       struct package *pkgs, int n, struct wd_err *err)
{
	struct txn t;
	char what[200] = "install";
	for (int i = 0; i < n && strlen(what) < 150; i++)
		snprintf(what + strlen(what), sizeof what - strlen(what), " %s", pkgs[i].m.name);
	int r = txn_begin(&t, v, what, err);
	if (r)
		return r;
	if (t.recovered)
		ui_warn(ctx, "an interrupted run on this volume was finished or undone first\n");
	if (!(r = db_begin(&t.db, err)) && !(r = catalog_remember(&t.db, cat, err)))
		r = db_commit(&t.db, err);
	if (r)
		db_rollback(&t.db);
	if (ctx->json) {
		json_obj_begin(&ctx->j, NULL);
		json_arr_begin(&ctx->j, "installed");
	}
	for (int i = 0; !r && i < n; i++) {
		struct txn_plan plan;
		bool nothing;
		if ((r = remove_replaced(ctx, &t, &pkgs[i], err)) ||
		    (r = txn_plan_install(v, &t.db, &pkgs[i], &plan, &nothing, err)))
			break;
		if (nothing) {
			ui_say(ctx, "%s %s is already installed.\n", pkgs[i].m.name, pkgs[i].m.version);
			continue;
		}
		r = txn_apply(&t, &plan, err);
		if (!r && ctx->json) {
			json_obj_begin(&ctx->j, NULL);
			json_str(&ctx->j, "name", plan.name);
			json_str(&ctx->j, "version", plan.version);
			json_int(&ctx->j, "files", (long long)pkgs[i].m.nfiles);
			json_obj_end(&ctx->j);
		} else if (!r) {
			ui_say(ctx, "Installed %s %s (%zu files).\n", plan.name, plan.version,
			       pkgs[i].m.nfiles);
		}
		txn_plan_free(&plan);
	}
	if (!r && ctx->json) {
		json_arr_end(&ctx->j);
		json_obj_end(&ctx->j);
		json_finish(&ctx->j);
	}
	txn_end(&t);
	return r;
}

int cmd_install(struct wd_ctx *ctx, int argc, char **argv)
{
	if (argc < 1)
		return ui_usage(ctx, "install: name at least one package or .wdp file");
	for (int i = 0; i < argc; i++)
		if (argv[i][0] == '-')
			return ui_usage(ctx, "install: unknown option '%s'", argv[i]);
	struct wd_err err = {0};
	struct volume v = {0};
	struct keyring kr = {0};
	struct catalog cat = {0};
	struct package *pkgs = wd_xcalloc((size_t)argc, sizeof *pkgs);
	int loaded = 0;
	int r = volume_open(&v, ctx->root, &err);
	if (r) {
		free(pkgs);
		return ui_fail(ctx, r, &err);
	}
	if (!(r = pkg_keyring(ctx, &v, &kr, &err)) && !(r = pkg_catalog(ctx, &kr, &cat, &err)))
		r = pkg_use_cache(ctx, &v, &cat, &err);
	for (; !r && loaded < argc; loaded++)
		if ((r = pkg_load(ctx, &kr, &cat, argv[loaded], &pkgs[loaded], &err)))
			break;
	struct db db = {0};
	bool have;
	if (!r)
		r = db_open(&db, &v, false, &have, &err);
	if (!r)
		r = check_all(&db, &kr, &cat, pkgs, argc, &err);
	db_close(&db);
	if (!r)
		r = preplan(ctx, &v, pkgs, argc, ctx->dry_run, &err);
	if (!r && !ctx->dry_run)
		r = install_all(ctx, &v, &cat, pkgs, argc, &err);
	for (int i = 0; i < loaded; i++)
		package_free(&pkgs[i]);
	free(pkgs);
	catalog_free(&cat);
	keyring_free(&kr);
	volume_close(&v);
	return r ? ui_fail(ctx, r, &err) : 0;
}
