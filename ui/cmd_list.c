/* warpdrv list [--installed]: the packages the repositories offer, or those
 * installed on the volume. */
#include <stdlib.h>
#include <string.h>

#include "state/installed.h"
#include "ui/commands.h"
#include "ui/pkgutil.h"

static int list_installed(struct wd_ctx *ctx, struct wd_err *err)
{
	struct volume v;
	struct db db;
	bool have;
	int r = pkg_state_read(ctx, &v, &db, &have, err);
	if (r)
		return r;
	struct installed_pkg *p = NULL;
	size_t n = 0;
	r = installed_packages(have ? &db : NULL, &p, &n, err);
	if (ctx->json) {
		json_obj_begin(&ctx->j, NULL);
		json_arr_begin(&ctx->j, "installed");
	}
	for (size_t i = 0; !r && i < n; i++) {
		if (ctx->json) {
			json_obj_begin(&ctx->j, NULL);
			json_str(&ctx->j, "name", p[i].name);
			json_str(&ctx->j, "version", p[i].version);
			json_str(&ctx->j, "released", p[i].released);
			json_str(&ctx->j, "kind", p[i].kind);
			json_str(&ctx->j, "entitlement", p[i].entitlement);
			json_str(&ctx->j, "summary", p[i].summary);
			json_str(&ctx->j, "installed", p[i].installed);
			json_obj_end(&ctx->j);
		} else {
			ui_say(ctx, "%-10s %-9s %s\n", p[i].name, p[i].version, p[i].summary);
		}
	}
	installed_packages_free(p, n);
	if (ctx->json) {
		json_arr_end(&ctx->j);
		json_obj_end(&ctx->j);
		json_finish(&ctx->j);
	} else if (!r && !n) {
		ui_say(ctx, "No packages installed on %s.\n", v.root);
	}
	db_close(&db);
	volume_close(&v);
	return r;
}

/* Installed versions, when there is a volume with a database: NULL otherwise. */
static char *installed_version_of(struct db *db, const char *name)
{
	struct wd_err e;
	char *v = NULL;
	if (installed_version(db, name, &v, &e))
		return NULL;
	return v;
}

static int list_available(struct wd_ctx *ctx, struct wd_err *err)
{
	struct volume v = {0};
	struct db db = {0};
	bool have = false;
	int r = 0;
	if (ctx->root && (r = pkg_state_read(ctx, &v, &db, &have, err)))
		return r;
	struct keyring kr;
	struct catalog cat = {0};
	if (!(r = pkg_keyring(ctx, ctx->root ? &v : NULL, &kr, err))) {
		r = pkg_catalog(ctx, &kr, &cat, err);
		keyring_free(&kr);
	}
	if (!r && ctx->json) {
		json_obj_begin(&ctx->j, NULL);
		json_arr_begin(&ctx->j, "packages");
	}
	for (size_t i = 0; !r && i < cat.n; i++)
		for (size_t k = 0; k < cat.repos[i].idx.npkgs; k++) {
			const struct index_entry *e = &cat.repos[i].idx.pkgs[k];
			if (catalog_find(&cat, e->name, NULL) != e)
				continue; /* shadowed by an earlier repository */
			char rel[11], *inst = installed_version_of(&db, e->name);
			pkg_date(e->released, rel);
			if (ctx->json) {
				json_obj_begin(&ctx->j, NULL);
				json_str(&ctx->j, "name", e->name);
				json_str(&ctx->j, "version", e->version);
				json_str(&ctx->j, "released", rel);
				json_str(&ctx->j, "kind", pkg_kind_name(e->kind));
				json_str(&ctx->j, "entitlement", e->entitlement);
				json_str(&ctx->j, "summary", e->summary);
				json_str(&ctx->j, "repository", cat.repos[i].url);
				json_str(&ctx->j, "installed", inst);
				json_obj_end(&ctx->j);
			} else {
				ui_say(ctx, "%-10s %-9s %-4s %-9s %s%s\n", e->name, e->version,
				       pkg_kind_name(e->kind), e->entitlement ? e->entitlement : "free",
				       e->summary, inst ? " [installed]" : "");
			}
			free(inst);
		}
	if (!r && ctx->json) {
		json_arr_end(&ctx->j);
		json_obj_end(&ctx->j);
		json_finish(&ctx->j);
	}
	catalog_free(&cat);
	db_close(&db);
	if (ctx->root)
		volume_close(&v);
	return r;
}

int cmd_list(struct wd_ctx *ctx, int argc, char **argv)
{
	bool installed = false;
	for (int i = 0; i < argc; i++) {
		if (ui_flag(argv, i, "--installed"))
			installed = true;
		else
			return ui_usage(ctx, "list: unexpected argument '%s'", argv[i]);
	}
	struct wd_err err = {0};
	int r = installed ? list_installed(ctx, &err) : list_available(ctx, &err);
	return r ? ui_fail(ctx, r, &err) : 0;
}
