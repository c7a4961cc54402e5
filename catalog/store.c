#include "catalog/store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/file.h"
#include "fs/fs.h"
#include "state/db.h"
#include "state/db_vfs.h"

/* 3: the signed index bytes, verified again on every load (2 kept parsed
 * rows, which nothing checked: read back, they were whatever the volume
 * held). */
#define STORE_VERSION 3
#define STORE_VERSION_SQL "PRAGMA user_version = 3;"

static const char schema[] =
	"CREATE TABLE repo (name TEXT PRIMARY KEY, url TEXT NOT NULL, source TEXT NOT NULL,"
	" signed BLOB NOT NULL);";

static int sql_fail(sqlite3 *h, const char *path, const char *what, struct wd_err *err)
{
	const char *refused = db_vfs_refused(db_vfs_of(h));
	if (refused)
		return wd_err_set(err, WD_ETRUST, "%s", refused);
	return wd_err_set(err, WD_EFAIL, "%s: %s: %s", path, what,
			  h ? sqlite3_errmsg(h) : "cannot open");
}

/* The schema as one step, for the check against the file's (db_check_schema). */
static const char *const schema_steps[] = {schema, NULL};

/* Opens the file name in the folder dir of the volume by handle. */
static int open_at(const struct fs_root *fs, const char *path, int flags, struct db *d,
		   struct wd_err *err)
{
	char *dir = wd_dirname(path);
	const char *name = strrchr(path, '/');
	int r = db_open_at(d, fs, dir, name ? name + 1 : path, flags, err);
	free(dir);
	return r;
}

int store_open(const struct fs_root *fs, const char *path, sqlite3 **h, bool *other,
	       struct wd_err *err)
{
	*h = NULL;
	if (other)
		*other = false;
	if (!fs_exists(fs, path))
		return 0;
	struct db d;
	int r = open_at(fs, path, SQLITE_OPEN_READONLY, &d, err);
	if (r)
		return wd_err_prefix(err, "the stored catalog");
	sqlite3_stmt *st = NULL;
	int v = 0;
	if (sqlite3_prepare_v2(d.h, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (v == STORE_VERSION)
		r = db_check_schema(&d, schema_steps, 1, "stored catalog", err);
	else if (other) /* another build's cache (or none): as if none, with a note */
		*other = true;
	if (!r && v == STORE_VERSION) {
		*h = d.h; /* db_handle_close frees its VFS */
		d.h = NULL;
		d.vfs = NULL;
	}
	db_close(&d);
	return r;
}

static int not_verified(const char *name, struct wd_err *err)
{
	char why[sizeof err->msg];
	snprintf(why, sizeof why, "%s", err->msg);
	return wd_err_set(err, WD_ETRUST, "%s/%s: the stored index of repository %s is not one "
			  "the trusted keys signed (%s); it is not used: run 'warpdrv update' to "
			  "fetch it again", STORE_DIR, STORE_NAME, name, why);
}

int store_get(sqlite3 *h, const char *name, const char *url, const struct keyring *kr,
	      struct repo_index *idx, bool *found, struct wd_err *err)
{
	memset(idx, 0, sizeof *idx);
	*found = false;
	if (!h)
		return 0;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(h, "SELECT signed FROM repo WHERE name = ? AND url = ?", -1, &st,
			       NULL) != SQLITE_OK)
		return sql_fail(h, "stored catalog", "cannot read", err);
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, url, -1, SQLITE_STATIC);
	int s = sqlite3_step(st), r = 0;
	if (s == SQLITE_ROW) {
		const void *text = sqlite3_column_blob(st, 0);
		int n = sqlite3_column_bytes(st, 0);
		if (!text || n <= 0 || n > INDEX_MAX_BYTES) {
			wd_err_set(err, WD_ETRUST, "%d bytes, not a signed index", n);
			r = not_verified(name, err);
		} else {
			/* the signature and every field again, as when it was
			 * fetched (file names by catalog/names.h); its expiry is the
			 * caller's to judge */
			r = index_read(text, (size_t)n, kr, INDEX_NO_EXPIRY, INDEX_NAME, idx, err);
			if (r)
				r = not_verified(name, err);
			else
				wd_buf_add(&idx->text, text, (size_t)n);
		}
		*found = !r;
	} else if (s != SQLITE_DONE) {
		r = sql_fail(h, "stored catalog", "cannot read", err);
	}
	sqlite3_finalize(st);
	return r;
}

static int put_entry(sqlite3_stmt *st, const struct store_entry *e)
{
	const struct wd_buf *t = &e->idx->text;
	if (!t->len || t->len > INDEX_MAX_BYTES)
		return -1; /* an index that was not read from its signed text */
	sqlite3_bind_text(st, 1, e->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, e->url, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, e->from, -1, SQLITE_STATIC);
	sqlite3_bind_blob(st, 4, t->p, (int)t->len, SQLITE_STATIC);
	int ok = sqlite3_step(st) == SQLITE_DONE;
	sqlite3_reset(st);
	return ok ? 0 : -1;
}

/* Fills a new file; no journal and no syncs inside: a half-written new
 * file is never renamed into place, and the whole file is flushed once. */
static int fill(sqlite3 *h, const char *tmp, const struct store_entry *e, size_t n,
		struct wd_err *err)
{
	if (sqlite3_exec(h, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;", NULL, NULL,
			 NULL) != SQLITE_OK ||
	    sqlite3_exec(h, schema, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(h, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return sql_fail(h, tmp, "cannot create the catalog", err);
	sqlite3_stmt *st = NULL;
	int r = 0;
	if (sqlite3_prepare_v2(h, "INSERT INTO repo VALUES (?, ?, ?, ?)", -1, &st, NULL) !=
	    SQLITE_OK)
		r = sql_fail(h, tmp, "cannot write the catalog", err);
	for (size_t i = 0; !r && i < n; i++)
		if (put_entry(st, &e[i]))
			r = e[i].idx->text.len ? sql_fail(h, tmp, "cannot write the catalog", err)
					       : wd_err_set(err, WD_EFAIL, "%s: repository %s: no signed "
							    "index to store", tmp, e[i].name);
	sqlite3_finalize(st);
	if (!r && sqlite3_exec(h, "COMMIT; " STORE_VERSION_SQL, NULL, NULL, NULL) != SQLITE_OK)
		r = sql_fail(h, tmp, "cannot write the catalog", err);
	return r;
}

int store_write(const struct fs_root *fs, const char *path, const struct store_entry *e, size_t n,
		struct wd_err *err)
{
	char *tmp = wd_xasprintf("%s.new", path);
	struct db d = {0};
	/* made afresh: a stale one (perhaps a hard link to a file elsewhere) goes first */
	int r = fs_unlink(fs, tmp, err);
	if (!r)
		r = open_at(fs, tmp, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, &d, err);
	if (!r)
		r = fill(d.h, tmp, e, n, err);
	db_close(&d);
	if (!r)
		r = fs_fsync_file(fs, tmp, err);
	if (!r)
		r = fs_rename(fs, tmp, path, err);
	if (!r)
		r = fs_fsync_parent(fs, path, err);
	if (r) {
		struct wd_err ignore;
		fs_unlink(fs, tmp, &ignore);
	}
	free(tmp);
	return r;
}
