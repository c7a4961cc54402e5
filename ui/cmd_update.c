/* warpdrv update: fetch every remote repository's signed index (through its
 * mirrors in order), refuse an older one (rollback) or an expired one
 * (freeze), then replace the stored catalog in one rename. A repository that
 * fails keeps its previous catalog; the command names it and why
 * (installer/update.h does the work; this file tells it). */
#include "catalog/versions.h"
#include "installer/update.h"
#include "ui/commands.h"
#include "ui/exit_code.h"
#include "ui/pkgutil.h"

static void report(struct wd_ctx *ctx, const struct update_run *u)
{
	const struct repo_list *l = &u->l;
	if (ctx->json) {
		json_obj_begin(&ctx->j, NULL);
		json_bool(&ctx->j, "dry_run", ctx->dry_run);
		json_arr_begin(&ctx->j, "repositories");
	}
	for (size_t i = 0; i < l->n; i++) {
		const struct repo_conf *c = &l->v[i];
		const struct update_outcome *x = &u->o[i];
		const char *from = x->used ? c->mirrors[x->used - 1] : c->url;
		bool same = x->have_old && x->have_fresh && x->old.serial == x->fresh.serial;
		const char *status = !x->have_fresh ? "failed" : same ? "current" : "updated";
		if (ctx->json) {
			json_obj_begin(&ctx->j, NULL);
			json_str(&ctx->j, "name", c->name);
			json_str(&ctx->j, "status", status);
			if (x->have_fresh) {
				json_str(&ctx->j, "source", from);
				json_int(&ctx->j, "serial", (long long)x->fresh.serial);
				json_int(&ctx->j, "package_count", (long long)x->fresh.npkgs);
				json_int(&ctx->j, "revoked_count", (long long)x->fresh.nrevoked);
			} else {
				/* the shape of the document's own "error" */
				json_obj_begin(&ctx->j, "error");
				json_int(&ctx->j, "exit_code", ui_exit_code(&x->err, x->r));
				json_str(&ctx->j, "message", x->err.msg);
				json_obj_end(&ctx->j);
			}
			json_obj_end(&ctx->j);
		} else if (x->have_fresh) {
			ui_say(ctx, "%s: %s, serial %llu, %s, %s (from %s)\n", ui_esc(c->name),
			       same ? "up to date" : "updated", (unsigned long long)x->fresh.serial,
			       ui_count(x->fresh.npkgs, "package"),
			       ui_count(x->fresh.nrevoked, "revoked key"), ui_esc(from));
		}
	}
	if (ctx->json) {
		json_arr_end(&ctx->j);
		json_obj_end(&ctx->j);
		json_finish(&ctx->j);
	}
}

int cmd_update(struct wd_ctx *ctx, int argc, char **argv)
{
	if (argc)
		return ui_usage(ctx, "update: unexpected argument '%s'", argv[0]);
	struct wd_err err = {0};
	struct update_run u;
	int r = update_begin(ctx->s, &u, &err);
	struct catalog *cat; /* none to update and none bundled: no repository at all */
	if (!r && !u.l.n && !(r = session_catalog(ctx->s, false, &cat, &err)))
		r = catalog_need_repository(cat, &err);
	if (!r && !u.l.n) {
		ui_say(ctx, "No remote repositories ('warpdrv repo add NAME URL' adds one); the "
			    "bundled repository is always read directly.\n");
		if (ctx->json) {
			json_obj_begin(&ctx->j, NULL);
			json_arr_begin(&ctx->j, "repositories");
			json_arr_end(&ctx->j);
			json_obj_end(&ctx->j);
			json_finish(&ctx->j);
		}
	} else if (!r && !(r = update_fetch(ctx->s, &u, &err))) {
		report(ctx, &u);
		r = update_failures(&u, &err);
	}
	update_end(&u);
	return r ? ui_fail(ctx, r, &err) : 0;
}
