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

/* 2: the package rows keep the index's choose and nic lines (choice). */
#define STORE_VERSION 2

/* bench/update.sh creates the same tables for its sqlite3 baseline. */
static const char schema[] =
	"CREATE TABLE repo (name TEXT PRIMARY KEY, url TEXT NOT NULL, source TEXT NOT NULL,"
	" serial INTEGER NOT NULL, issued INTEGER NOT NULL, expires INTEGER NOT NULL,"
	" signer TEXT NOT NULL);"
	"CREATE TABLE package (repo TEXT NOT NULL, name TEXT NOT NULL, version TEXT NOT NULL,"
	" released INTEGER NOT NULL, kind TEXT NOT NULL, entitlement TEXT, file TEXT NOT NULL,"
	" size INTEGER NOT NULL, sha256 TEXT NOT NULL, summary TEXT NOT NULL, choice TEXT);"
	"CREATE TABLE revoked (repo TEXT NOT NULL, key_id TEXT NOT NULL);";

static int sql_fail(sqlite3 *h, const char *path, const char *what, struct wd_err *err)
{
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

int store_open(const struct fs_root *fs, const char *path, sqlite3 **h, struct wd_err *err)
{
	*h = NULL;
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
	if (v == STORE_VERSION) /* else another build's cache: as if none */
		r = db_check_schema(&d, schema_steps, 1, "stored catalog", err);
	if (!r && v == STORE_VERSION) {
		*h = d.h;
		d.h = NULL;
	}
	db_close(&d);
	return r;
}

static char *col(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);
	return s ? wd_xstrdup(s) : NULL;
}

static int get_packages(sqlite3 *h, const char *name, struct repo_index *idx,
			struct wd_err *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(h, "SELECT name, version, released, kind, entitlement, file, size,"
				  " sha256, summary, choice FROM package WHERE repo = ? ORDER BY rowid",
			       -1, &st, NULL) != SQLITE_OK)
		return sql_fail(h, "stored catalog", "cannot read", err);
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	int s, r = 0;
	while (!r && (s = sqlite3_step(st)) == SQLITE_ROW) {
		if (!(idx->npkgs & (idx->npkgs - 1)) || !idx->npkgs)
			idx->pkgs = wd_xrealloc(idx->pkgs, (idx->npkgs ? 2 * idx->npkgs : 1) *
							       sizeof *idx->pkgs);
		struct index_entry *e = &idx->pkgs[idx->npkgs++];
		memset(e, 0, sizeof *e);
		e->name = col(st, 0);
		e->version = col(st, 1);
		e->released = sqlite3_column_int(st, 2);
		const char *kind = (const char *)sqlite3_column_text(st, 3);
		if (!kind || !pkg_kind_parse(wd_sv_cstr(kind), &e->kind))
			r = wd_err_set(err, WD_EFAIL, "stored catalog: package %s has the unknown kind "
				       "'%s'; run 'warpdrv update'", e->name ? e->name : "?",
				       kind ? kind : "");
		e->entitlement = col(st, 4);
		e->file = col(st, 5);
		e->size = (uint64_t)sqlite3_column_int64(st, 6);
		snprintf(e->sha256, sizeof e->sha256, "%s", (const char *)sqlite3_column_text(st, 7));
		e->summary = col(st, 8);
		const char *choice = (const char *)sqlite3_column_text(st, 9);
		if (choice && !r)
			r = index_choice_read(idx, choice, strlen(choice), "stored catalog", err);
	}
	sqlite3_finalize(st);
	if (r)
		return r;
	return s == SQLITE_DONE ? 0 : sql_fail(h, "stored catalog", "cannot read", err);
}

static int get_revoked(sqlite3 *h, const char *name, struct repo_index *idx, struct wd_err *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(h, "SELECT key_id FROM revoked WHERE repo = ? ORDER BY rowid", -1,
			       &st, NULL) != SQLITE_OK)
		return sql_fail(h, "stored catalog", "cannot read", err);
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		idx->revoked = wd_xrealloc(idx->revoked, (idx->nrevoked + 1) * sizeof *idx->revoked);
		idx->revoked[idx->nrevoked++] = col(st, 0);
	}
	sqlite3_finalize(st);
	return s == SQLITE_DONE ? 0 : sql_fail(h, "stored catalog", "cannot read", err);
}

int store_get(sqlite3 *h, const char *name, const char *url, struct repo_index *idx,
	      bool *found, struct wd_err *err)
{
	memset(idx, 0, sizeof *idx);
	*found = false;
	if (!h)
		return 0;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(h, "SELECT serial, issued, expires, signer FROM repo "
				  "WHERE name = ? AND url = ?", -1, &st, NULL) != SQLITE_OK)
		return sql_fail(h, "stored catalog", "cannot read", err);
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, url, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*found = true;
		idx->serial = (uint64_t)sqlite3_column_int64(st, 0);
		idx->issued = sqlite3_column_int(st, 1);
		idx->expires = sqlite3_column_int(st, 2);
		snprintf(idx->signer, sizeof idx->signer, "%s",
			 (const char *)sqlite3_column_text(st, 3));
	}
	sqlite3_finalize(st);
	int r = 0;
	if (*found && !(r = get_packages(h, name, idx, err)))
		r = get_revoked(h, name, idx, err);
	if (r) {
		index_free(idx);
		*found = false;
	}
	return r;
}

static int put_entry(sqlite3 *h, sqlite3_stmt **st, const struct store_entry *e)
{
	const struct repo_index *x = e->idx;
	sqlite3_bind_text(st[0], 1, e->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st[0], 2, e->url, -1, SQLITE_STATIC);
	sqlite3_bind_text(st[0], 3, e->from, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st[0], 4, (sqlite3_int64)x->serial);
	sqlite3_bind_int(st[0], 5, x->issued);
	sqlite3_bind_int(st[0], 6, x->expires);
	sqlite3_bind_text(st[0], 7, x->signer, -1, SQLITE_STATIC);
	int ok = sqlite3_step(st[0]) == SQLITE_DONE;
	sqlite3_reset(st[0]);
	for (size_t i = 0; ok && i < x->npkgs; i++) {
		const struct index_entry *p = &x->pkgs[i];
		sqlite3_bind_text(st[1], 1, e->name, -1, SQLITE_STATIC);
		sqlite3_bind_text(st[1], 2, p->name, -1, SQLITE_STATIC);
		sqlite3_bind_text(st[1], 3, p->version, -1, SQLITE_STATIC);
		sqlite3_bind_int(st[1], 4, p->released);
		sqlite3_bind_text(st[1], 5, pkg_kind_name(p->kind), -1, SQLITE_STATIC);
		if (p->entitlement)
			sqlite3_bind_text(st[1], 6, p->entitlement, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(st[1], 6);
		sqlite3_bind_text(st[1], 7, p->file, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st[1], 8, (sqlite3_int64)p->size);
		sqlite3_bind_text(st[1], 9, p->sha256, 64, SQLITE_STATIC);
		sqlite3_bind_text(st[1], 10, p->summary, -1, SQLITE_STATIC);
		struct wd_buf choice = {0};
		index_choice_write(p, &choice);
		if (choice.len)
			sqlite3_bind_text(st[1], 11, choice.p, (int)choice.len, SQLITE_STATIC);
		else
			sqlite3_bind_null(st[1], 11);
		ok = sqlite3_step(st[1]) == SQLITE_DONE;
		sqlite3_reset(st[1]);
		wd_buf_free(&choice);
	}
	for (size_t i = 0; ok && i < x->nrevoked; i++) {
		sqlite3_bind_text(st[2], 1, e->name, -1, SQLITE_STATIC);
		sqlite3_bind_text(st[2], 2, x->revoked[i], -1, SQLITE_STATIC);
		ok = sqlite3_step(st[2]) == SQLITE_DONE;
		sqlite3_reset(st[2]);
	}
	(void)h;
	return ok ? 0 : -1;
}

/* Fills a new file; no journal and no syncs inside: a half-written new
 * file is never renamed into place, and the whole file is flushed once. */
static int fill(sqlite3 *h, const char *tmp, const struct store_entry *e, size_t n,
		struct wd_err *err)
{
	static const char *const ins[3] = {
		"INSERT INTO repo VALUES (?, ?, ?, ?, ?, ?, ?)",
		"INSERT INTO package VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		"INSERT INTO revoked VALUES (?, ?)",
	};
	if (sqlite3_exec(h, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;", NULL, NULL,
			 NULL) != SQLITE_OK ||
	    sqlite3_exec(h, schema, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(h, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return sql_fail(h, tmp, "cannot create the catalog", err);
	sqlite3_stmt *st[3] = {0};
	int r = 0;
	for (int i = 0; !r && i < 3; i++)
		if (sqlite3_prepare_v2(h, ins[i], -1, &st[i], NULL) != SQLITE_OK)
			r = sql_fail(h, tmp, "cannot write the catalog", err);
	for (size_t i = 0; !r && i < n; i++)
		if (put_entry(h, st, &e[i]))
			r = sql_fail(h, tmp, "cannot write the catalog", err);
	for (int i = 0; i < 3; i++)
		sqlite3_finalize(st[i]);
	if (!r && sqlite3_exec(h, "COMMIT; PRAGMA user_version = 2;", NULL, NULL, NULL) !=
			  SQLITE_OK)
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
