/* warpdrv list [--installed|--upgradable] [PATTERN]: the packages the
 * repositories offer (each at its newest version, with where it comes from
 * and what is installed), those installed on the volume, or those a newer
 * version of which is on offer; PATTERN a glob over the names. warpdrv
 * search TERM: those whose name or summary has TERM. Case is ignored. */
#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/version.h"
#include "catalog/versions.h"
#include "installer/clean.h"
#include "installer/query.h"
#include "installer/upgrade.h"
#include "ui/commands.h"
#include "ui/pkgutil.h"
#include "ui/source.h"

/* What the user asked for: a glob over names (lowercase, as names are), or
 * a word to find in names and summaries; neither: everything. */
struct filter {
	const char *glob;
	const char *term;
	size_t shown;
};

static bool has_word(const char *s, const char *term)
{
	size_t n = strlen(term);
	for (; s && *s; s++)
		if (!strncasecmp(s, term, n))
			return true;
	return false;
}

static bool wanted(struct filter *f, const char *name, const char *summary)
{
	bool yes = f->glob ? !fnmatch(f->glob, name, 0)
		 : f->term ? has_word(name, f->term) || has_word(summary, f->term) : true;
	if (yes)
		f->shown++;
	return yes;
}

/* Nothing matched: exit 1 with a message, as owns does for no owner. */
static int none_matched(const struct filter *f, struct wd_err *err)
{
	if (f->shown || (!f->glob && !f->term))
		return 0;
	if (f->glob)
		return wd_err_set(err, WD_EFAIL, "no package matches '%s'", f->glob);
	return wd_err_set(err, WD_EFAIL, "no package name or summary has '%s'", f->term);
}

static int list_installed(struct wd_ctx *ctx, struct filter *f, struct wd_err *err)
{
	struct installed_view iv;
	int r = query_installed(ctx->s, &iv, err);
	if (!iv.opened)
		return r;
	struct installed_pkg *p = iv.p;
	size_t n = iv.n;
	if (ctx->json) {
		json_obj_begin(&ctx->j, NULL);
		json_arr_begin(&ctx->j, "packages");
	}
	for (size_t i = 0; !r && i < n; i++) {
		if (!wanted(f, p[i].name, p[i].summary))
			continue;
		if (ctx->json) {
			json_obj_begin(&ctx->j, NULL);
			json_str(&ctx->j, "name", p[i].name);
			json_str(&ctx->j, "version", p[i].version);
			json_str(&ctx->j, "released", p[i].released);
			json_str(&ctx->j, "kind", p[i].kind);
			json_str(&ctx->j, "entitlement", p[i].entitlement);
			json_str(&ctx->j, "summary", p[i].summary);
			json_str(&ctx->j, "installed_version", p[i].version);
			json_time(&ctx->j, "installed_at", p[i].installed);
			json_bool(&ctx->j, "held", iv.held[i]);
			json_obj_end(&ctx->j);
		} else {
			ui_say(ctx, "%-10s %-9s %s%s\n", ui_esc(p[i].name), ui_esc(p[i].version),
			       ui_esc(p[i].summary), iv.held[i] ? " [held]" : "");
		}
	}
	installed_view_free(&iv);
	if (!r)
		r = n ? none_matched(f, err) : 0;
	if (ctx->json) {
		json_arr_end(&ctx->j);
		if (!r) {
			json_obj_end(&ctx->j);
			json_finish(&ctx->j);
		}
	} else if (!r && !n) {
		ui_say(ctx, "No packages installed on %s.\n", ui_esc(iv.root));
	}
	return r;
}

static void show_entry(struct wd_ctx *ctx, const struct index_entry *e, const struct repo *from,
		       const char *inst, bool upgradable, bool held)
{
	char rel[11];
	pkg_date(e->released, rel);
	if (ctx->json) {
		json_obj_begin(&ctx->j, NULL);
		json_str(&ctx->j, "name", e->name);
		json_str(&ctx->j, "version", e->version);
		json_str(&ctx->j, "released", rel);
		json_str(&ctx->j, "kind", pkg_kind_name(e->kind));
		json_str(&ctx->j, "entitlement", e->entitlement);
		json_str(&ctx->j, "summary", e->summary);
		json_str(&ctx->j, "repository", from->url);
		json_str(&ctx->j, "installed_version", inst);
		json_bool(&ctx->j, "upgradable", upgradable);
		json_bool(&ctx->j, "held", held);
		json_obj_end(&ctx->j);
		return;
	}
	char note[300] = "";
	if (inst && upgradable)
		snprintf(note, sizeof note, " [installed %s; %s from %s%s]", ui_esc(inst),
			 ui_esc(e->version), ui_esc(from->name ? from->name : from->url),
			 held ? "; held" : "");
	else if (inst)
		snprintf(note, sizeof note, " [installed%s]", held ? "; held" : "");
	ui_say(ctx, "%-10s %-9s %-4s %-9s %s%s\n", ui_esc(e->name), ui_esc(e->version),
	       pkg_kind_name(e->kind), e->entitlement ? ui_esc(e->entitlement) : "free",
	       ui_esc(e->summary), note);
}

/* Each package once: its newest version, where from, and what is installed. */
static void list_entries(struct wd_ctx *ctx, const struct catalog *cat, bool only_upgradable,
			 struct filter *f)
{
	size_t n;
	struct catalog_version *v = catalog_newest_each(cat, &n);
	for (size_t i = 0; i < n; i++) {
		const struct index_entry *e = v[i].e;
		bool held;
		char *inst = query_installed_version(ctx->s, e->name, &held);
		bool up = inst && version_cmp(e->version, inst) > 0;
		if ((!only_upgradable || up) && wanted(f, e->name, e->summary))
			show_entry(ctx, e, v[i].from, inst, up, held);
		free(inst);
	}
	free(v);
}

/* The size of the volume's download cache (installer/clean.h): "cache" in
 * the --json document; as text only with -v, on stderr, so that stdout is
 * the listing alone. */
static void show_cache(struct wd_ctx *ctx, const struct volume *v)
{
	struct clean_report rep;
	struct wd_err e;
	if (cache_survey(v, &rep, &e)) {
		ui_warn(ctx, "%s\n", e.msg);
	} else if (ctx->json) {
		json_arr_end(&ctx->j);
		json_obj_begin(&ctx->j, "cache");
		json_int(&ctx->j, "file_count", (long long)rep.removed);
		json_int(&ctx->j, "size", (long long)rep.bytes);
		json_obj_end(&ctx->j);
	} else if (rep.removed && ctx->verbose && !ctx->quiet) {
		fprintf(stderr, "Download cache: %zu file%s, %llu bytes in %s ('warpdrv clean' removes "
		       "them).\n", rep.removed, rep.removed == 1 ? "" : "s",
		       (unsigned long long)rep.bytes, ui_esc(rep.dir));
	}
	clean_report_free(&rep);
}

static int list_available(struct wd_ctx *ctx, bool only_upgradable, struct filter *f,
			  struct wd_err *err)
{
	struct volume *v;
	struct db *db; /* no volume: nothing installed */
	struct catalog *cat;
	int r = 0;
	if (ui_volume_given(ctx) && ((r = session_boot_volume(ctx->s, &v, err)) ||
			  (r = session_db(ctx->s, SESSION_DB_READ, &db, NULL, err))))
		return r;
	r = session_catalog(ctx->s, false, &cat, err);
	if (!r)
		r = catalog_need_repository(cat, err);
	if (!r && ctx->json) {
		json_obj_begin(&ctx->j, NULL);
		json_arr_begin(&ctx->j, "packages");
	}
	if (!r) {
		list_entries(ctx, cat, only_upgradable, f);
		/* --upgradable finding none is no error: nothing to upgrade */
		r = only_upgradable && !f->glob ? 0 : none_matched(f, err);
	}
	if (!r && ui_volume_given(ctx))
		show_cache(ctx, v);
	if (ctx->json && json_reopen_top(&ctx->j) && !r) {
		json_obj_end(&ctx->j);
		json_finish(&ctx->j);
	}
	return r;
}

int cmd_list(struct wd_ctx *ctx, int argc, char **argv)
{
	const struct list_args *a = UI_ARGS(ctx, struct list_args);
	bool installed = a->installed, upgradable = a->upgradable;
	if (argc > 1)
		return ui_usage(ctx, "list: one PATTERN at most ('%s' is extra; quote a glob "
				"such as 'e*' so that the shell leaves it)", argv[1]);
	pkg_fold_names(argc, argv);
	struct filter f = {.glob = argc ? argv[0] : NULL};
	struct wd_err err = {0};
	if (installed && upgradable)
		return ui_usage(ctx, "list: --installed and --upgradable do not go together");
	if (upgradable && !ui_volume_given(ctx))
		return ui_usage(ctx, "list --upgradable: name the volume (--root DIR)");
	int r = installed ? list_installed(ctx, &f, &err)
			  : list_available(ctx, upgradable, &f, &err);
	return r ? ui_fail(ctx, r, &err) : 0;
}

int cmd_search(struct wd_ctx *ctx, int argc, char **argv)
{
	if (argc != 1 || !argv[0][0])
		return ui_usage(ctx, "search: name one TERM to look for in package names and "
				"summaries");
	struct wd_err err = {0};
	struct filter f = {.term = argv[0]};
	int r = list_available(ctx, false, &f, &err);
	return r ? ui_fail(ctx, r, &err) : 0;
}

const struct wd_opt cmd_list_opts[] = {
	WD_OPT_BOOL(struct list_args, installed, "installed", 0, "what the volume has"),
	WD_OPT_BOOL(struct list_args, upgradable, "upgradable", 0,
		    "the installed packages a newer version of which is on offer"),
	{0},
};
