/* The state database on the volume: var/lib/warpdrv/warpdrv.db (SQLite).
 * Schema upgrades step through PRAGMA user_version, one version per
 * transaction. The rollback journal (not WAL) is used: it works on every file
 * system the volume may be mounted from, shared memory or not. */
#ifndef WD_DB_H
#define WD_DB_H

#include <sqlite3.h>
#include <stdbool.h>

#include "common/err.h"
#include "os2/volume.h"

#define WD_STATE_DIR "var/lib/warpdrv"
#define WD_DB_NAME "warpdrv.db"

struct db {
	sqlite3 *h;
	char *path;
};

/* Opens the volume's database. With create false and no database on the
 * volume, *exists is false and nothing is written (a read-only command must
 * not even create the state folder). With create true, the state folder and
 * the database are made and migrated to the newest schema. */
int db_open(struct db *db, const struct volume *v, bool create, bool *exists,
	    struct wd_err *err);
void db_close(struct db *db);
/* Runs SQL with no result rows; the message names the database and SQLite's reason. */
int db_exec(struct db *db, const char *sql, struct wd_err *err);
int db_prepare(struct db *db, const char *sql, sqlite3_stmt **st, struct wd_err *err);
int db_fail(struct db *db, struct wd_err *err, const char *what);
/* BEGIN IMMEDIATE / COMMIT / ROLLBACK. */
int db_begin(struct db *db, struct wd_err *err);
/* A read transaction (BEGIN DEFERRED): every read until db_rollback sees one
 * state of the database, whatever another process commits meanwhile (it
 * waits). A database that is not open: nothing to do. */
int db_begin_read(struct db *db, struct wd_err *err);
int db_commit(struct db *db, struct wd_err *err);
void db_rollback(struct db *db);
/* A small key-value table for single facts (the latest date seen, say). */
int db_meta_get(struct db *db, const char *key, char **val, struct wd_err *err); /* *val NULL if unset */
int db_meta_set(struct db *db, const char *key, const char *val, struct wd_err *err);
/* A database in memory with the newest schema (tests, fuzz targets). */
int db_open_memory(struct db *db, struct wd_err *err);
/* Closes a handle another owner opened (the stored catalog's, say). */
void db_handle_close(sqlite3 *h);
/* Steps a database through a NULL-terminated list of schema steps (element i
 * takes user_version i to i + 1), one transaction each; what names the kind
 * of file in messages. For files other than the volume's state (bench). */
int db_migrate(struct db *db, const char *const *steps, const char *what, struct wd_err *err);

#endif
