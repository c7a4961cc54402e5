#include "state/installed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "state/txnlog.h"

/* A query with one text parameter and one text result, or *out NULL. */
static int one_text(struct db *db, const char *sql, const char *arg, char **out,
		    struct wd_err *err)
{
	*out = NULL;
	if (!db || !db->h)
		return 0;
	sqlite3_stmt *st;
	bool fresh;
	int r = db_prepare_kept(db, sql, &st, &fresh, err);
	if (r)
		return r;
	sqlite3_bind_text(st, 1, arg, -1, SQLITE_STATIC);
	int s = sqlite3_step(st);
	if (s == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		*out = wd_xstrdup((const char *)sqlite3_column_text(st, 0));
	else if (s != SQLITE_ROW && s != SQLITE_DONE)
		r = db_fail(db, err, "cannot read the installed packages");
	if (fresh)
		sqlite3_finalize(st);
	else
		sqlite3_reset(st); /* no read left open on the handle */
	return r;
}

int installed_version(struct db *db, const char *name, char **version, struct wd_err *err)
{
	return one_text(db, "SELECT version FROM package WHERE name = ?", name, version, err);
}

int installed_owner(struct db *db, const char *os2, char **owner, struct wd_err *err)
{
	return one_text(db, "SELECT package FROM file WHERE path = upper(?)", os2, owner, err);
}

static char *col(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);
	return s ? wd_xstrdup(s) : NULL;
}

int installed_packages(struct db *db, struct installed_pkg **out, size_t *n,
		       struct wd_err *err)
{
	*out = NULL;
	*n = 0;
	if (!db || !db->h)
		return 0;
	sqlite3_stmt *st;
	int r = db_prepare(db, "SELECT name, version, released, kind, entitlement, summary, "
			       "installed FROM package ORDER BY name", &st, err);
	if (r)
		return r;
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		*out = wd_xrealloc(*out, (*n + 1) * sizeof **out);
		struct installed_pkg *p = &(*out)[(*n)++];
		*p = (struct installed_pkg){
			.name = col(st, 0),
			.version = col(st, 1),
			.released = col(st, 2),
			.kind = col(st, 3),
			.entitlement = col(st, 4),
			.summary = col(st, 5),
			.installed = col(st, 6),
		};
	}
	if (s != SQLITE_DONE)
		r = db_fail(db, err, "cannot read the installed packages");
	sqlite3_finalize(st);
	return r;
}

void installed_packages_free(struct installed_pkg *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(p[i].name);
		free(p[i].version);
		free(p[i].released);
		free(p[i].kind);
		free(p[i].entitlement);
		free(p[i].summary);
		free(p[i].installed);
	}
	free(p);
}

/* A path column of a file row: text, volume-relative. */
static int path_col(struct db *db, sqlite3_stmt *st, int i, const char *what, char **out,
		    struct wd_err *err)
{
	*out = NULL;
	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		return 0;
	const char *s = (const char *)sqlite3_column_text(st, i), *why = "it is not text";
	size_t len = (size_t)sqlite3_column_bytes(st, i);
	if (sqlite3_column_type(st, i) == SQLITE_TEXT && txnlog_path_ok(s, len, &why)) {
		*out = wd_xstrdup(s);
		return 0;
	}
	char shown[80];
	snprintf(shown, sizeof shown, "%.*s", (int)(len < 60 ? len : 60), s ? s : "");
	for (char *c = shown; *c; c++)
		*c = *c >= 0x20 && *c < 0x7f ? *c : '?';
	return wd_err_set(err, WD_EFAIL, "%s: file row %s: %s '%s' is not a path below the "
			  "volume's root (%s); the database is damaged or was made elsewhere",
			  db->path, (const char *)sqlite3_column_text(st, 0), what, shown, why);
}

static int read_file_row(struct db *db, sqlite3_stmt *st, struct installed_file *f,
			 struct wd_err *err)
{
	memset(f, 0, sizeof *f);
	f->path = col(st, 0);
	f->package = col(st, 1);
	f->size = sqlite3_column_int64(st, 3);
	snprintf(f->sha, sizeof f->sha, "%s", sqlite3_column_text(st, 4));
	snprintf(f->kept_sha, sizeof f->kept_sha, "%s",
		 sqlite3_column_type(st, 6) == SQLITE_NULL ? "" : (const char *)sqlite3_column_text(st, 6));
	int r = path_col(db, st, 2, "host", &f->host, err);
	if (!r && !f->host)
		r = wd_err_set(err, WD_EFAIL, "%s: file row %s has no host path", db->path, f->path);
	return r ? r : path_col(db, st, 5, "kept", &f->kept, err);
}

int installed_files(struct db *db, const char *name, struct installed_file **out, size_t *n,
		    struct wd_err *err)
{
	*out = NULL;
	*n = 0;
	if (!db || !db->h)
		return 0;
	sqlite3_stmt *st;
	int r = db_prepare(db, "SELECT path, package, host, size, sha256, kept, kept_sha256 "
			       "FROM file WHERE ?1 IS NULL OR package = ?1 ORDER BY package, path",
			   &st, err);
	if (r)
		return r;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	int s = SQLITE_DONE;
	while (!r && (s = sqlite3_step(st)) == SQLITE_ROW) {
		*out = wd_xrealloc(*out, (*n + 1) * sizeof **out);
		r = read_file_row(db, st, &(*out)[(*n)++], err);
	}
	if (!r && s != SQLITE_DONE)
		r = db_fail(db, err, "cannot read the installed files");
	sqlite3_finalize(st);
	if (r) {
		installed_files_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return r;
}

void installed_files_free(struct installed_file *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(f[i].path);
		free(f[i].package);
		free(f[i].host);
		free(f[i].kept);
	}
	free(f);
}

int installed_db_intact(struct db *db, struct wd_err *err)
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
