/* The state database on the volume: var/lib/warpdrv/warpdrv.db (SQLite).
 * Schema upgrades step through PRAGMA user_version, one version per
 * transaction. The rollback journal (not WAL) is used: it works on every file
 * system the volume may be mounted from, shared memory or not. */
#ifndef WD_DB_H
#define WD_DB_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/err.h"
#include "fs/fs.h"
#include "os2/volume.h"

#define WD_STATE_DIR "var/lib/warpdrv"
#define WD_DB_NAME "warpdrv.db"

#define DB_KEPT 4

struct db_vfs;
struct db {
	sqlite3 *h;
	struct db_vfs *vfs; /* the VFS of db_open_at's files (NULL in memory) */
	char *path;
	const struct fs_root *fs; /* the volume it lies on (db_open_at) */
	struct {
		const char *sql; /* a string constant's address: the key */
		sqlite3_stmt *st;
	} kept[DB_KEPT]; /* db_prepare_kept's statements, finalized by db_close */
	/* what is left of the running statement's bound of virtual-machine steps
	 * on a connection in memory (db.c: db_harden; one on a file keeps it
	 * with its VFS) */
	int step_budget;
};

/* Opens the volume's database. With create false and no database on the
 * volume, *exists is false and nothing is written (a read-only command must
 * not even create the state folder). With create true, the state folder and
 * the database are made and migrated to the newest schema. */
/* 0 when the SQLite library the program runs with is recent enough (3.33);
 * else an error that names path and the package to install. A command
 * calls it before it makes anything a database will be kept with. */
int db_sqlite_ready(const char *path, struct wd_err *err);
int db_open(struct db *db, const struct volume *v, bool create, bool *exists,
	    struct wd_err *err);
/* The same, read-only: nothing on the volume is written (a hot journal is
 * not played back but named, with 'warpdrv recover'), so it works on a
 * read-only volume; a database of an older schema is read through a copy in
 * memory, migrated there. */
int db_open_read(struct db *db, const struct volume *v, bool *exists, struct wd_err *err);
void db_close(struct db *db);
/* Opens the SQLite file name in the folder dir (a host path below fs's
 * root) by handle, through a confined VFS of its own (state/db_vfs.c): the
 * folder is opened beneath the root without following links, the file must
 * be a plain file with one link, and so must its journal if one is there; a
 * header that says WAL, or a -wal or -shm beside it, is refused (WD_ETRUST,
 * naming it), and so is anything the VFS refuses on the first read (a
 * journal that names a super-journal, say). flags are sqlite3_open_v2's
 * (SQLITE_OPEN_READONLY: the file is opened read-only). Every statement
 * then runs under a step budget, with temporary tables in memory. */
int db_open_at(struct db *db, const struct fs_root *fs, const char *dir, const char *name,
	       int flags, struct wd_err *err);
/* Refuses a database whose schema is not what steps[0..version) write:
 * tables, columns, indexes, and no view or trigger (WD_ETRUST, naming the
 * first difference). Called before any other query of the file. */
/* The schema rows db_check_schema compares: those steps[0..version) write
 * in a database in memory (into out), and those kept for the state
 * database's latest steps (NULL for any other steps or version). The
 * fingerprint is what says the kept rows are the steps'. */
struct wd_buf;
int db_schema_rows_built(const char *const *steps, int version, const char *what,
			 struct wd_buf *out, struct wd_err *err);
const char *db_schema_rows_known(const char *const *steps, int version);
uint64_t db_schema_fingerprint(const char *const *steps, int version);
int db_check_schema(struct db *db, const char *const *steps, int version, const char *what,
		    struct wd_err *err);
/* The step budget and the schema distrust of db_open_at, for db->h opened
 * otherwise (in memory). */
void db_harden(struct db *db);
/* chmod of the database file by handle, while no statement runs (a file
 * system without modes refuses: the caller may ignore it). */
int db_chmod(struct db *db, mode_t mode, struct wd_err *err);
/* Runs SQL with no result rows; the message names the database and SQLite's reason. */
int db_exec(struct db *db, const char *sql, struct wd_err *err);
int db_prepare(struct db *db, const char *sql, sqlite3_stmt **st, struct wd_err *err);
/* The statement for sql (a string constant) prepared once per handle and
 * kept: a query asked once for each of a package's files is parsed once,
 * not once a file. Returned reset, its bindings cleared; the caller steps
 * it and never finalizes it (db_close does). More than DB_KEPT such queries
 * on one handle are prepared afresh each time, *fresh set: the caller then
 * finalizes it. */
int db_prepare_kept(struct db *db, const char *sql, sqlite3_stmt **st, bool *fresh,
		    struct wd_err *err);
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
