/* warpdrv repo add NAME URL [--mirror URL]... [--subscription] | list | remove NAME:
 * the remote repositories kept on the volume. `warpdrv update` fetches them. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "catalog/fetch.h"
#include "catalog/repolist.h"
#include "catalog/store.h"
#include "common/date.h"
#include "common/file.h"
#include "ui/commands.h"
#include "ui/pkgutil.h"

struct add_args {
	struct repo_conf c;
	char *mirrors[REPO_MAX_MIRRORS];
};

/* An argument without "://" names a folder on this host: one that exists. */
static int folder_or_url(struct wd_ctx *ctx, const char *arg)
{
	if (strstr(arg, "://") || wd_is_dir(arg)) /* host: a folder named on the command line */
		return 0;
	char *shown = fetch_url_redacted(arg);
	int r = ui_usage(ctx, "repo add: '%s' is neither a URL (http://HOST/..., https://HOST/..., "
			 "file:///FOLDER) nor a folder that exists", shown);
	free(shown);
	return r;
}

static int add_args(struct wd_ctx *ctx, int argc, char **argv, struct add_args *a)
{
	const char *pos[2];
	int npos = 0;
	const struct repo_add_args *o = UI_ARGS(ctx, struct repo_add_args);
	if (o->mirror.n > REPO_MAX_MIRRORS)
		return ui_usage(ctx, "repo add: at most %d mirrors", REPO_MAX_MIRRORS);
	for (int i = 0; i < o->mirror.n; i++) {
		if (folder_or_url(ctx, o->mirror.v[i]))
			return WD_EUSAGE;
		a->mirrors[a->c.nmirrors++] = repo_url(o->mirror.v[i]);
	}
	a->c.subscription = o->subscription;
	for (int i = 0; i < argc; i++) {
		if (npos == 2)
			return ui_usage(ctx, "repo add: unexpected argument '%s'", argv[i]);
		pos[npos++] = argv[i];
	}
	if (npos != 2)
		return ui_usage(ctx, "repo add: usage: repo add NAME URL [--mirror URL]... "
				"[--subscription]");
	if (!repo_valid_name(pos[0]))
		return ui_usage(ctx, "repo add: '%s': a name is 1 to 32 of a-z, 0-9 and ._- "
				"starting with a letter or digit", pos[0]);
	a->c.name = (char *)pos[0];
	if (folder_or_url(ctx, pos[1]))
		return WD_EUSAGE;
	a->c.url = repo_url(pos[1]);
	a->c.mirrors = a->mirrors;
	for (size_t i = 0; i <= a->c.nmirrors; i++) {
		const char *u = i ? a->mirrors[i - 1] : a->c.url;
		struct wd_err err = {0};
		int r = fetch_url_check(u, &err);
		if (r == -WD_EUSAGE)
			return ui_usage(ctx, "repo add: %s", err.msg);
		if (r)
			return ui_fail(ctx, r, &err);
		if (a->c.subscription && !strncasecmp(u, "http://", 7))
			return ui_usage(ctx, "repo add: %s: a subscription repository is sent the "
					"key, so it must use https://", u);
	}
	return 0;
}

static void add_args_free(struct add_args *a)
{
	free(a->c.url);
	for (size_t i = 0; i < a->c.nmirrors; i++)
		free(a->mirrors[i]);
}

static int repo_add(struct wd_ctx *ctx, int argc, char **argv)
{
	struct add_args a = {0};
	int r = add_args(ctx, argc, argv, &a);
	if (r) {
		add_args_free(&a);
		return r;
	}
	struct wd_err err = {0};
	struct volume *v;
	struct db *db;
	int today;
	if (!(r = wd_today(&today, &err)) && !(r = session_volume(ctx->s, &v, &err)) &&
	    !ctx->dry_run && !(r = session_db(ctx->s, SESSION_DB_CREATE, &db, NULL, &err)))
		r = repolist_add(db, &a.c, today, &err);
	if (!r && ctx->json) {
		json_obj_begin(&ctx->j, NULL);
		json_str(&ctx->j, "name", a.c.name);
		json_str(&ctx->j, "url", a.c.url);
		json_arr_begin(&ctx->j, "mirrors");
		for (size_t i = 0; i < a.c.nmirrors; i++)
			json_str(&ctx->j, NULL, a.c.mirrors[i]);
		json_arr_end(&ctx->j);
		json_bool(&ctx->j, "subscription", a.c.subscription);
		json_bool(&ctx->j, "dry_run", ctx->dry_run);
		json_obj_end(&ctx->j);
		json_finish(&ctx->j);
	} else if (!r) {
		ui_say(ctx, "%s repository %s: %s (%s%s).\n",
		       ctx->dry_run ? "Would add" : "Added", ui_esc(a.c.name), ui_esc(a.c.url),
		       ui_count(a.c.nmirrors, "mirror"), a.c.subscription ? ", subscription" : "");
		ui_say(ctx, "Run 'warpdrv update' to fetch its catalog.\n");
	}
	add_args_free(&a);
	return r ? ui_fail(ctx, r, &err) : 0;
}

static int repo_remove(struct wd_ctx *ctx, int argc, char **argv)
{
	if (argc != 1)
		return ui_usage(ctx, "repo remove: usage: repo remove NAME");
	struct wd_err err = {0};
	struct db *db;
	struct repo_list l = {0};
	bool found = false;
	int r = session_db(ctx->s, SESSION_DB_PLAIN, &db, NULL, &err);
	if (!r)
		r = repolist_read(db, &l, &err);
	if (!r && !repolist_find(&l, argv[0]))
		r = wd_err_set(&err, WD_EFAIL, "no repository named '%s' ('warpdrv repo list' "
			       "shows them)", argv[0]);
	if (!r && !ctx->dry_run)
		r = repolist_remove(db, argv[0], &found, &err);
	if (!r && ctx->json) {
		json_obj_begin(&ctx->j, NULL);
		json_str(&ctx->j, "name", argv[0]);
		json_bool(&ctx->j, "dry_run", ctx->dry_run);
		json_obj_end(&ctx->j);
		json_finish(&ctx->j);
	} else if (!r) {
		ui_say(ctx, "%s repository %s.\n", ctx->dry_run ? "Would remove" : "Removed",
		       ui_esc(argv[0]));
	}
	repolist_free(&l);
	return r ? ui_fail(ctx, r, &err) : 0;
}

static void show_one(struct wd_ctx *ctx, const struct repo_conf *c, sqlite3 *store,
		     const struct keyring *kr)
{
	struct repo_index idx;
	bool found = false;
	struct wd_err ignore;
	bool bad = store_get(store, c->name, c->url, kr, &idx, &found, &ignore) == -WD_ETRUST;
	char exp[WD_DATE_LEN] = "";
	if (found)
		wd_date_format(idx.expires, exp);
	/* a URL stored before repo add refused credentials: its password hidden */
	char *url = fetch_url_redacted(c->url);
	char **mirrors = wd_xcalloc(c->nmirrors + 1, sizeof *mirrors);
	for (size_t i = 0; i < c->nmirrors; i++)
		mirrors[i] = fetch_url_redacted(c->mirrors[i]);
	if (ctx->json) {
		json_obj_begin(&ctx->j, NULL);
		json_str(&ctx->j, "name", c->name);
		json_str(&ctx->j, "url", url);
		json_arr_begin(&ctx->j, "mirrors");
		for (size_t i = 0; i < c->nmirrors; i++)
			json_str(&ctx->j, NULL, mirrors[i]);
		json_arr_end(&ctx->j);
		json_bool(&ctx->j, "subscription", c->subscription);
		if (found) {
			json_int(&ctx->j, "serial", (long long)idx.serial);
			json_int(&ctx->j, "package_count", (long long)idx.npkgs);
			json_str(&ctx->j, "expires", exp);
		} else {
			/* no index fetched yet: the same names, null */
			json_null(&ctx->j, "serial");
			json_null(&ctx->j, "package_count");
			json_null(&ctx->j, "expires");
		}
		json_obj_end(&ctx->j);
	} else {
		ui_say(ctx, "%-16s %s%s\n", ui_esc(c->name), ui_esc(url),
		       c->subscription ? "  (subscription)" : "");
		for (size_t i = 0; i < c->nmirrors; i++)
			ui_say(ctx, "%-16s   mirror %s\n", "", ui_esc(mirrors[i]));
		if (found)
			ui_say(ctx, "%-16s   catalog: serial %llu, %s, expires %s\n", "",
			       (unsigned long long)idx.serial, ui_count(idx.npkgs, "package"), exp);
		else
			ui_say(ctx, "%-16s   catalog: %s ('warpdrv update')\n", "",
			       bad ? "does not verify, not used" : "not fetched yet");
	}
	if (found)
		index_free(&idx);
	for (size_t i = 0; i < c->nmirrors; i++)
		free(mirrors[i]);
	free(mirrors);
	free(url);
}

static int repo_list(struct wd_ctx *ctx, int argc, char **argv)
{
	(void)argv;
	if (argc)
		return ui_usage(ctx, "repo list: no arguments");
	struct wd_err err = {0};
	struct volume *v;
	struct db *db;
	struct repo_list l = {0};
	const struct keyring *kr;
	sqlite3 *store = NULL;
	char *path = NULL;
	bool found;
	int r = session_volume(ctx->s, &v, &err);
	if (!r) /* read only: a transaction left pending is told, never finished */
		r = session_db(ctx->s, SESSION_DB_READ, &db, NULL, &err);
	if (!r)
		r = repolist_read(db, &l, &err);
	if (!r)
		r = volume_resolve(v, STORE_DIR "/" STORE_NAME, &path, &found, &err);
	if (!r)
		r = store_open(&v->fs, path, &store, NULL, &err);
	if (!r)
		r = session_keyring(ctx->s, &kr, &err);
	char *bundled = ui_data_dir(ctx, "repo");
	if (!r && ctx->json) {
		json_obj_begin(&ctx->j, NULL);
		json_str(&ctx->j, "bundled", bundled);
		json_arr_begin(&ctx->j, "repositories");
	} else if (!r) {
		ui_say(ctx, "%-16s %s  (always used, read directly)\n", "bundled",
		       bundled ? ui_esc(bundled) : "(none found)");
	}
	for (size_t i = 0; !r && i < l.n; i++)
		show_one(ctx, &l.v[i], store, kr);
	if (!r && ctx->json) {
		json_arr_end(&ctx->j);
		json_obj_end(&ctx->j);
		json_finish(&ctx->j);
	}
	free(bundled);
	free(path);
	db_handle_close(store);
	repolist_free(&l);
	return r ? ui_fail(ctx, r, &err) : 0;
}

static const struct wd_opt add_opts[] = {
	WD_OPT_REPEAT(struct repo_add_args, mirror, "mirror", 0, "URL",
		      "a mirror of the repository, tried in order (repeatable)"),
	WD_OPT_BOOL(struct repo_add_args, subscription, "subscription", 0,
		    "a subscription repository (https only): sent the activated key"),
	{0},
};

const struct wd_cmd cmd_repo_subs[] = {
	{.name = "add", .run = repo_add, .args = "NAME URL [--mirror URL]... [--subscription]",
	 .summary = "add a repository: URL is http(s)://, file:// or a folder",
	 .help = "Mirrors are tried in order; a subscription repository (https only) is sent the\n"
	 "activated key as HTTP Basic credentials (docs/repository.md).\n", .opts = add_opts, .args_size = sizeof(struct repo_add_args),
	 .db = CMD_DB_CREATE, .writes = true},
	{.name = "list", .run = repo_list, .args = "", .summary = "each repository, its mirrors and its stored catalog",
	 .db = CMD_DB_READ},
	{.name = "remove", .run = repo_remove, .args = "NAME", .summary = "remove a repository and its stored catalog",
	 .db = CMD_DB_PLAIN, .writes = true},
	{0},
};
