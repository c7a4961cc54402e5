/* warpdrv verify [PKG]: every installed file's size and SHA-256 against the
 * database, and the database's own integrity. Exit 3 on any difference. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/file.h"
#include "common/hash.h"
#include "ui/commands.h"
#include "ui/pkgutil.h"

static int db_integrity(struct db *db, struct wd_err *err)
{
	sqlite3_stmt *st;
	int r = db_prepare(db, "PRAGMA integrity_check", &st, err);
	if (r)
		return r;
	const char *res = sqlite3_step(st) == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0)
							   : "no answer";
	if (strcmp(res, "ok"))
		r = wd_err_set(err, WD_ETRUST, "%s: the database is damaged: %s", db->path, res);
	sqlite3_finalize(st);
	if (r || (r = db_prepare(db, "PRAGMA foreign_key_check", &st, err)))
		return r;
	if (sqlite3_step(st) == SQLITE_ROW)
		r = wd_err_set(err, WD_ETRUST, "%s: the database is inconsistent (a file row "
			       "without its package)", db->path);
	sqlite3_finalize(st);
	return r;
}

static const char *check_file(const struct volume *v, const char *host, long long size,
			      const char *sha)
{
	char *abs = wd_path_join(v->root, host), hex[WD_SHA256_HEX];
	struct stat st;
	struct wd_err e;
	const char *bad = NULL;
	if (stat(abs, &st) < 0)
		bad = "missing";
	else if (st.st_size != size)
		bad = "size differs";
	else if (wd_sha256_file(abs, hex, &e) || strcmp(hex, sha))
		bad = "content differs";
	free(abs);
	return bad;
}

static int verify(struct wd_ctx *ctx, const char *pkg, struct wd_err *err)
{
	struct volume v;
	struct db db;
	bool have;
	int r = pkg_state_read(ctx, &v, &db, &have, err);
	if (r)
		return r;
	int checked = 0, bad = 0;
	sqlite3_stmt *st = NULL;
	if (have && !(r = db_integrity(&db, err)))
		r = db_prepare(&db, "SELECT path, host, size, sha256, package FROM file "
			       "WHERE ?1 IS NULL OR package = ?1 ORDER BY package, path", &st, err);
	if (!r && pkg) {
		sqlite3_stmt *q;
		bool known = false;
		if (have && !db_prepare(&db, "SELECT 1 FROM package WHERE name = ?", &q, err)) {
			sqlite3_bind_text(q, 1, pkg, -1, SQLITE_STATIC);
			known = sqlite3_step(q) == SQLITE_ROW;
			sqlite3_finalize(q);
		}
		if (!known)
			r = wd_err_set(err, WD_EFAIL, "%s is not installed", pkg);
	}
	if (!r && ctx->json) {
		json_obj_begin(&ctx->j, NULL);
		json_arr_begin(&ctx->j, "problems");
	}
	if (st)
		sqlite3_bind_text(st, 1, pkg, -1, SQLITE_STATIC);
	while (!r && st && sqlite3_step(st) == SQLITE_ROW) {
		const char *path = (const char *)sqlite3_column_text(st, 0);
		const char *why = check_file(&v, (const char *)sqlite3_column_text(st, 1),
					     sqlite3_column_int64(st, 2),
					     (const char *)sqlite3_column_text(st, 3));
		checked++;
		if (!why)
			continue;
		bad++;
		if (ctx->json) {
			json_obj_begin(&ctx->j, NULL);
			json_str(&ctx->j, "path", path);
			json_str(&ctx->j, "package", (const char *)sqlite3_column_text(st, 4));
			json_str(&ctx->j, "problem", why);
			json_obj_end(&ctx->j);
		} else {
			fprintf(stderr, "%s: %s (%s)\n", path, why, sqlite3_column_text(st, 4));
		}
	}
	sqlite3_finalize(st);
	if (!r && ctx->json) {
		json_arr_end(&ctx->j);
		json_int(&ctx->j, "checked", checked);
		json_obj_end(&ctx->j);
		json_finish(&ctx->j);
	}
	if (!r && bad)
		r = wd_err_set(err, WD_ETRUST, "%d of %d installed files differ from what was "
			       "installed; reinstall the package to repair them", bad, checked);
	else if (!r)
		ui_say(ctx, "%d installed files checked; all as installed. Database intact.\n",
		       checked);
	db_close(&db);
	volume_close(&v);
	return r;
}

int cmd_verify(struct wd_ctx *ctx, int argc, char **argv)
{
	if (argc > 1 || (argc == 1 && argv[0][0] == '-'))
		return ui_usage(ctx, "verify: at most one package name");
	struct wd_err err = {0};
	int r = verify(ctx, argc ? argv[0] : NULL, &err);
	if (!r)
		return 0;
	/* under --json the document with the problems is already out */
	if (ctx->json && err.code == WD_ETRUST && strstr(err.msg, "installed files differ"))
		return WD_ETRUST;
	return ui_fail(ctx, r, &err);
}
