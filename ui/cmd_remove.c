/* warpdrv remove PKG...: deletes a package's files and puts back the files
 * it had replaced, one transaction per package. */
#include <stdlib.h>
#include <string.h>

#include "common/file.h"
#include "os2/config_sys.h"
#include "installer/txn.h"
#include "ui/commands.h"
#include "ui/pkgutil.h"

/* Refuses to delete a file CONFIG.SYS loads (a driver setup configured):
 * the guest would stop at boot looking for it. A file the package had
 * replaced is put back, and stays loadable. */
static int still_loaded(const struct volume *v, const struct txn_plan *plan, struct wd_err *err)
{
	struct wd_buf b = {0};
	int r = wd_read_file(v->config_sys, 4u << 20, &b, err);
	if (r) {
		wd_buf_free(&b);
		return r;
	}
	struct config_sys cs;
	config_sys_parse(&cs, b.p ? b.p : "", b.len);
	for (size_t i = 0; !r && i < plan->nops; i++) {
		const struct txn_op *o = &plan->ops[i];
		if (o->kind != TXN_DELETE || !o->os2)
			continue;
		const char *base = strrchr(o->os2, '\\');
		base = base ? base + 1 : o->os2;
		for (long k = 0; !r && (k = config_sys_find(&cs, (size_t)k, NULL, base)) >= 0; k++) {
			struct cs_stmt st;
			if (config_sys_stmt(&cs, (size_t)k, &st) && st.loads)
				r = wd_err_set(err, WD_EFAIL, "CONFIG.SYS line %ld loads %s, which removing %s "
					       "deletes: the guest would not find it at boot. Configure "
					       "another driver first (warpdrv configure nic --driver NAME) "
					       "or roll the change back (warpdrv rollback), then remove %s",
					       k + 1, base, plan->name, plan->name);
		}
	}
	config_sys_free(&cs);
	wd_buf_free(&b);
	return r;
}

static int dry_run(struct wd_ctx *ctx, struct volume *v, int argc, char **argv,
		   struct wd_err *err)
{
	struct db db;
	bool have;
	int r = db_open(&db, v, false, &have, err);
	if (!r && !have)
		r = wd_err_set(err, WD_EFAIL, "%s is not installed (nothing is installed on %s)",
			       argv[0], v->root);
	if (!r && ctx->json) {
		json_obj_begin(&ctx->j, NULL);
		json_bool(&ctx->j, "dry_run", true);
		json_arr_begin(&ctx->j, "plans");
	}
	for (int i = 0; !r && i < argc; i++) {
		struct txn_plan plan;
		if (!(r = txn_plan_remove(v, &db, argv[i], &plan, err))) {
			if (!(r = still_loaded(v, &plan, err)))
				pkg_show_plan(ctx, &plan);
			txn_plan_free(&plan);
		}
	}
	if (!r && ctx->json) {
		json_arr_end(&ctx->j);
		json_obj_end(&ctx->j);
		json_finish(&ctx->j);
	}
	db_close(&db);
	return r;
}

static int remove_all(struct wd_ctx *ctx, struct volume *v, int argc, char **argv,
		      struct wd_err *err)
{
	struct db probe;
	bool have;
	int r = db_open(&probe, v, false, &have, err);
	if (!r && !have) /* do not create the state folder just to say no */
		r = wd_err_set(err, WD_EFAIL, "%s is not installed (nothing is installed on %s)",
			       argv[0], v->root);
	/* the checks that need no lock, before the lock file is touched */
	for (int i = 0; !r && i < argc; i++) {
		struct txn_plan plan;
		if (!(r = txn_plan_remove(v, &probe, argv[i], &plan, err))) {
			r = still_loaded(v, &plan, err);
			txn_plan_free(&plan);
		}
	}
	db_close(&probe);
	if (r)
		return r;
	struct txn t;
	if (r || (r = txn_begin(&t, v, "remove", err)))
		return r;
	struct txn_plan *plans = wd_xcalloc((size_t)argc, sizeof *plans);
	int n = 0;
	for (; !r && n < argc; n++) /* every check again, under the lock */
		if ((r = txn_plan_remove(v, &t.db, argv[n], &plans[n], err)))
			break;
	if (!r && ctx->json) {
		json_obj_begin(&ctx->j, NULL);
		json_arr_begin(&ctx->j, "removed");
	}
	for (int i = 0; !r && i < argc; i++) {
		if ((r = txn_apply(&t, &plans[i], err)))
			break;
		if (ctx->json) {
			json_obj_begin(&ctx->j, NULL);
			json_str(&ctx->j, "name", plans[i].name);
			json_str(&ctx->j, "version", plans[i].version);
			json_obj_end(&ctx->j);
		} else {
			ui_say(ctx, "Removed %s %s.\n", plans[i].name, plans[i].version);
		}
	}
	if (!r && ctx->json) {
		json_arr_end(&ctx->j);
		json_obj_end(&ctx->j);
		json_finish(&ctx->j);
	}
	for (int i = 0; i < n && i < argc; i++)
		txn_plan_free(&plans[i]);
	free(plans);
	txn_end(&t);
	return r;
}

int cmd_remove(struct wd_ctx *ctx, int argc, char **argv)
{
	if (argc < 1)
		return ui_usage(ctx, "remove: name at least one package");
	for (int i = 0; i < argc; i++)
		if (argv[i][0] == '-')
			return ui_usage(ctx, "remove: unknown option '%s'", argv[i]);
	struct wd_err err = {0};
	struct volume v = {0};
	int r = volume_open(&v, ctx->root, &err);
	if (!r)
		r = ctx->dry_run ? dry_run(ctx, &v, argc, argv, &err)
				 : remove_all(ctx, &v, argc, argv, &err);
	volume_close(&v);
	return r ? ui_fail(ctx, r, &err) : 0;
}
