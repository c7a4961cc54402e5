#include "state/db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state/schema.h"
#include "state/txnlog.h"
#include "common/buf.h"
#include "common/file.h"

int db_fail(struct db *db, struct wd_err *err, const char *what)
{
	return wd_err_set(err, WD_EFAIL, "%s: %s: %s", db->path ? db->path : "database", what,
			  db->h ? sqlite3_errmsg(db->h) : "not open");
}

int db_exec(struct db *db, const char *sql, struct wd_err *err)
{
	char *msg = NULL;
	if (sqlite3_exec(db->h, sql, NULL, NULL, &msg) != SQLITE_OK) {
		int r = wd_err_set(err, WD_EFAIL, "%s: %s", db->path, msg ? msg : "error");
		sqlite3_free(msg);
		return r;
	}
	return 0;
}

int db_prepare(struct db *db, const char *sql, sqlite3_stmt **st, struct wd_err *err)
{
	if (sqlite3_prepare_v2(db->h, sql, -1, st, NULL) != SQLITE_OK)
		return db_fail(db, err, "cannot prepare a query");
	return 0;
}

int db_begin(struct db *db, struct wd_err *err)
{
	return db_exec(db, "BEGIN IMMEDIATE", err);
}

int db_begin_read(struct db *db, struct wd_err *err)
{
	return db->h ? db_exec(db, "BEGIN DEFERRED", err) : 0;
}

int db_commit(struct db *db, struct wd_err *err)
{
	return db_exec(db, "COMMIT", err);
}

void db_rollback(struct db *db)
{
	if (db->h && !sqlite3_get_autocommit(db->h))
		sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
}

static int user_version(struct db *db, int *v, struct wd_err *err)
{
	sqlite3_stmt *st;
	int r = db_prepare(db, "PRAGMA user_version", &st, err);
	if (r)
		return r;
	*v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
	sqlite3_finalize(st);
	return 0;
}

int db_migrate(struct db *db, const char *const *steps, const char *what, struct wd_err *err)
{
	int have, want = 0;
	while (steps[want])
		want++;
	int r = user_version(db, &have, err);
	if (r)
		return r;
	if (have > want)
		return wd_err_set(err, WD_EFAIL,
				  "%s: %s schema version %d is newer than this warpdrv knows (%d); "
				  "use a newer warpdrv", db->path, what, have, want);
	for (int v = have; v < want; v++) {
		if ((r = db_begin(db, err)))
			return r;
		char pragma[64];
		snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", v + 1);
		if ((r = db_exec(db, steps[v], err)) || (r = db_exec(db, pragma, err)) ||
		    (r = db_commit(db, err))) {
			db_rollback(db);
			return wd_err_prefix(err, "upgrading the %s schema to version %d", what, v + 1);
		}
	}
	return 0;
}

static int migrate(struct db *db, struct wd_err *err)
{
	int have;
	int r = user_version(db, &have, err);
	if (!r)
		r = txnlog_before_upgrade(db, have, err);
	return r ? r : db_migrate(db, db_schema_steps, "database", err);
}

/* The database is data from the volume, not code: no function with side
 * effects from its schema (a trigger or view someone planted), no writes to
 * its internals. */
static void harden(sqlite3 *h)
{
	sqlite3_db_config(h, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)NULL);
	sqlite3_db_config(h, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL);
}

int db_open_memory(struct db *db, struct wd_err *err)
{
	memset(db, 0, sizeof *db);
	db->path = wd_xstrdup(":memory:");
	if (sqlite3_open_v2(":memory:", &db->h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
	    SQLITE_OK) {
		int r = db_fail(db, err, "cannot open a database in memory");
		db_close(db);
		return r;
	}
	harden(db->h);
	int r = db_exec(db, "PRAGMA foreign_keys = ON;", err);
	if (!r)
		r = migrate(db, err);
	if (r)
		db_close(db);
	return r;
}

void db_handle_close(sqlite3 *h)
{
	sqlite3_close(h);
}

/* The database and its journal must be plain files (or not there): a link
 * would move the state outside the root, a FIFO would hang SQLite. */
static int plain_or_none(const char *path, struct wd_err *err)
{
	int r = wd_check_plain(path, NULL, err);
	if (!r) {
		char *journal = wd_xasprintf("%s-journal", path);
		r = wd_check_plain(journal, NULL, err);
		free(journal);
	}
	return r;
}

int db_open(struct db *db, const struct volume *v, bool create, bool *exists,
	    struct wd_err *err)
{
	memset(db, 0, sizeof *db);
	char *dir = NULL;
	bool found = false;
	int r = volume_resolve(v, WD_STATE_DIR, &dir, &found, err);
	if (r)
		return r;
	db->path = wd_path_join(dir, WD_DB_NAME);
	bool have = found && wd_exists(db->path);
	if (exists)
		*exists = have;
	if (!have && !create) {
		free(dir);
		return 0;
	}
	if (!found && (r = volume_mkdirs(v, dir, err))) {
		free(dir);
		db_close(db);
		return r;
	}
	free(dir);
	if ((r = plain_or_none(db->path, err))) {
		db_close(db);
		return r;
	}
	int flags = (create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READWRITE) |
		    SQLITE_OPEN_NOFOLLOW;
	if (sqlite3_open_v2(db->path, &db->h, flags, NULL) != SQLITE_OK) {
		r = db_fail(db, err, "cannot open the state database");
		db_close(db);
		return r;
	}
	harden(db->h);
	sqlite3_busy_timeout(db->h, 5000);
	/* synchronous = EXTRA: besides FULL's flushes, SQLite flushes the folder
	 * after it unlinks the journal at a commit (DELETE journal mode), so
	 * that a commit warpdrv reports is on stable storage: a lost unlink
	 * would leave a hot journal that rolls the commit back. */
	if ((r = db_exec(db, "PRAGMA journal_mode = DELETE; PRAGMA synchronous = EXTRA; "
			     "PRAGMA foreign_keys = ON;", err)) ||
	    (r = migrate(db, err))) {
		db_close(db);
		return r;
	}
	if (exists)
		*exists = true;
	return 0;
}

void db_close(struct db *db)
{
	if (db->h)
		sqlite3_close(db->h);
	free(db->path);
	memset(db, 0, sizeof *db);
}

int db_meta_get(struct db *db, const char *key, char **val, struct wd_err *err)
{
	*val = NULL;
	sqlite3_stmt *st;
	int r = db_prepare(db, "SELECT value FROM meta WHERE key = ?", &st, err);
	if (r)
		return r;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	int s = sqlite3_step(st);
	if (s == SQLITE_ROW)
		*val = wd_xstrdup((const char *)sqlite3_column_text(st, 0));
	else if (s != SQLITE_DONE)
		r = db_fail(db, err, "cannot read");
	sqlite3_finalize(st);
	return r;
}

int db_meta_set(struct db *db, const char *key, const char *val, struct wd_err *err)
{
	sqlite3_stmt *st;
	int r = db_prepare(db, "INSERT INTO meta (key, value) VALUES (?, ?) "
			       "ON CONFLICT (key) DO UPDATE SET value = excluded.value", &st, err);
	if (r)
		return r;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, val, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		r = db_fail(db, err, "cannot write");
	sqlite3_finalize(st);
	return r;
}
