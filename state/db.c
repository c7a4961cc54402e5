#include "state/db.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "state/schema.h"
#include "state/txnlog.h"
#include "common/buf.h"
#include "common/file.h"
#include "fs/fs.h"
#include "state/db_vfs.h"

/* An error the VFS caused (it refused a file: WD_ETRUST with its words) or
 * a read-only connection met (a journal to play back); 0 for any other. */
static int vfs_error(struct db *db, struct wd_err *err)
{
	const char *why = db_vfs_refused(db->vfs ? db->vfs : db_vfs_of(db->h));
	if (why)
		return wd_err_set(err, WD_ETRUST, "%s", why);
	if (db->h && sqlite3_extended_errcode(db->h) == SQLITE_READONLY_ROLLBACK)
		return wd_err_set(err, WD_EFAIL, "%s-journal: a write of the database was "
				  "interrupted, and this command only reads; 'warpdrv recover' plays "
				  "the journal back (on a volume that can be written)", db->path);
	return 0;
}

int db_fail(struct db *db, struct wd_err *err, const char *what)
{
	int r = vfs_error(db, err);
	return r ? r : wd_err_set(err, WD_EFAIL, "%s: %s: %s", db->path ? db->path : "database",
				  what, db->h ? sqlite3_errmsg(db->h) : "not open");
}

int db_exec(struct db *db, const char *sql, struct wd_err *err)
{
	char *msg = NULL;
	if (sqlite3_exec(db->h, sql, NULL, NULL, &msg) != SQLITE_OK) {
		int r = vfs_error(db, err);
		if (!r)
			r = wd_err_set(err, WD_EFAIL, "%s: %s", db->path, msg ? msg : "error");
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

int db_prepare_kept(struct db *db, const char *sql, sqlite3_stmt **st, bool *fresh,
		    struct wd_err *err)
{
	*fresh = false;
	size_t i = 0;
	while (i < DB_KEPT && db->kept[i].sql && db->kept[i].sql != sql)
		i++;
	if (i < DB_KEPT && db->kept[i].sql) {
		*st = db->kept[i].st;
		sqlite3_reset(*st);
		sqlite3_clear_bindings(*st);
		return 0;
	}
	int r = db_prepare(db, sql, st, err);
	if (!r && i < DB_KEPT) {
		db->kept[i].sql = sql;
		db->kept[i].st = *st;
	} else if (!r) {
		*fresh = true;
	}
	return r;
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
/* Every statement runs under a bound of virtual-machine steps: a crafted
 * database that makes a query loop (a recursive view the schema check would
 * refuse, a row that makes a query explode) ends with an error instead of
 * holding the CPU. The budget is restarted at each statement (the trace
 * callback marks its start); the real queries take a few thousand steps. */
#define DB_STEP_BUDGET 200000 /* progress callbacks of DB_STEP_EVERY steps: 2e8 steps */
#define DB_STEP_EVERY 1000
static int budget_left(void *arg)
{
	int *left = arg;
	return --*left <= 0; /* non-zero interrupts the statement */
}
static int budget_restart(unsigned type, void *arg, void *p, void *x)
{
	(void)type, (void)p, (void)x;
	*(int *)arg = DB_STEP_BUDGET;
	return 0;
}
/* The budget is the connection's: its VFS's (db_vfs.h), which a handle
 * handed out of its struct db keeps (catalog/store.c), or, in memory,
 * db->step_budget (such a struct db is not moved while open). */
void db_harden(struct db *db)
{
	sqlite3 *h = db->h;
	int *budget = db->vfs ? db_vfs_step_budget(db->vfs) : &db->step_budget;
	sqlite3_db_config(h, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)NULL);
	sqlite3_db_config(h, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL);
	*budget = DB_STEP_BUDGET;
	sqlite3_progress_handler(h, DB_STEP_EVERY, budget_left, budget);
	sqlite3_trace_v2(h, SQLITE_TRACE_STMT, budget_restart, budget);
}

int db_chmod(struct db *db, mode_t mode, struct wd_err *err)
{
	return db->fs ? fs_chmod(db->fs, db->path, mode, err) : 0;
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
	db_harden(db);
	int r = db_exec(db, "PRAGMA foreign_keys = ON;", err);
	if (!r)
		r = migrate(db, err);
	if (r)
		db_close(db);
	return r;
}

void db_handle_close(sqlite3 *h)
{
	struct db_vfs *v = db_vfs_of(h);
	sqlite3_close(h);
	db_vfs_free(v);
}

/* The schema of the file, as rows "type name table sql", against the one
 * this build's steps write at the same version: a view, a trigger, a
 * table or column of someone else's, any difference, and nothing is asked of
 * the database. */
static int schema_rows(sqlite3 *h, struct wd_buf *out)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(h, "SELECT type, name, tbl_name, coalesce(sql, '') FROM "
			       "sqlite_schema ORDER BY type, name", -1, &st, NULL) != SQLITE_OK)
		return -1;
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW)
		wd_buf_addf(out, "%s %s %s %s\n", (const char *)sqlite3_column_text(st, 0),
			    (const char *)sqlite3_column_text(st, 1),
			    (const char *)sqlite3_column_text(st, 2),
			    (const char *)sqlite3_column_text(st, 3));
	sqlite3_finalize(st);
	return s == SQLITE_DONE ? 0 : -1;
}

int db_schema_rows_built(const char *const *steps, int version, const char *what,
			 struct wd_buf *out, struct wd_err *err)
{
	sqlite3 *ref;
	if (sqlite3_open_v2(":memory:", &ref, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
	    SQLITE_OK) {
		sqlite3_close(ref);
		return wd_err_set(err, WD_EFAIL, "cannot open a database in memory");
	}
	int r = 0;
	for (int v = 0; !r && v < version; v++)
		if (sqlite3_exec(ref, steps[v], NULL, NULL, NULL) != SQLITE_OK)
			r = wd_err_set(err, WD_EFAIL, "%s schema step %d: %s", what, v + 1,
				       sqlite3_errmsg(ref));
	if (!r && schema_rows(ref, out) < 0)
		r = wd_err_set(err, WD_EFAIL, "%s schema: %s", what, sqlite3_errmsg(ref));
	sqlite3_close(ref);
	return r;
}

/* The rows (schema_rows' text) that the state database's steps 1 to 11
 * write, for the check of every open without running them: building that
 * reference in memory took 2.8 ms, most of an unchanged update's database
 * open (each ALTER TABLE reloads the whole schema). It is used only for
 * steps whose text has the fingerprint below (any other steps, versions or
 * a later step added: the reference is built as before), and the unit test
 * (tests/unit/test_state.c) holds it to the rows built from the steps. */
#define KNOWN_VERSION 11
#define KNOWN_FNV 0x7299ea20f48f13ddULL
static const char known_rows[] =
	"index file_package file CREATE INDEX file_package ON file (package)\n"
	"index sqlite_autoindex_file_1 file \n"
	"index sqlite_autoindex_generation_package_1 generation_package \n"
	"index sqlite_autoindex_hold_1 hold \n"
	"index sqlite_autoindex_meta_1 meta \n"
	"index sqlite_autoindex_package_1 package \n"
	"index sqlite_autoindex_repository_1 repository \n"
	"index sqlite_autoindex_repository_2 repository \n"
	"index sqlite_autoindex_repository_mirror_1 repository_mirror \n"
	"index sqlite_autoindex_revoked_keys_1 revoked_keys \n"
	"index sqlite_autoindex_txn_op_1 txn_op \n"
	"index sqlite_autoindex_txn_package_1 txn_package \n"
	"index sqlite_autoindex_txn_remove_1 txn_remove \n"
	"index subscription_keys_current subscription_keys CREATE UNIQUE INDEX "
	"subscription_keys_current ON subscription_keys ((ended IS NULL)) WHERE ended IS NULL\n"
	"table file file CREATE TABLE file (path TEXT PRIMARY KEY, package TEXT NOT NULL "
	"REFERENCES package (name) ON DELETE CASCADE, host TEXT NOT NULL, size INTEGER NOT "
	"NULL, sha256 TEXT NOT NULL, kept TEXT, kept_sha256 TEXT)\n"
	"table generation generation CREATE TABLE generation (n INTEGER PRIMARY KEY, at TEXT "
	"NOT NULL, command TEXT NOT NULL, summary TEXT NOT NULL)\n"
	"table generation_package generation_package CREATE TABLE generation_package (n "
	"INTEGER NOT NULL, name TEXT NOT NULL, version TEXT NOT NULL, action TEXT NOT NULL "
	"CHECK (action IN ('install', 'upgrade', 'reinstall')), PRIMARY KEY (n, name))\n"
	"table history history CREATE TABLE history (id INTEGER PRIMARY KEY, at TEXT NOT NULL, "
	"action TEXT NOT NULL, package TEXT NOT NULL, version TEXT NOT NULL, from_version "
	"TEXT, command TEXT, packages TEXT)\n"
	"table hold hold CREATE TABLE hold (name TEXT PRIMARY KEY, at TEXT NOT NULL)\n"
	"table meta meta CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)\n"
	"table package package CREATE TABLE package (name TEXT PRIMARY KEY, version TEXT NOT "
	"NULL, released TEXT NOT NULL, kind TEXT NOT NULL, entitlement TEXT, summary TEXT NOT "
	"NULL, manifest TEXT NOT NULL, installed TEXT NOT NULL)\n"
	"table repository repository CREATE TABLE repository (name TEXT PRIMARY KEY, url TEXT "
	"NOT NULL, subscription INTEGER NOT NULL DEFAULT 0 CHECK (subscription IN (0, 1)), "
	"added TEXT NOT NULL, seq INTEGER NOT NULL UNIQUE)\n"
	"table repository_mirror repository_mirror CREATE TABLE repository_mirror (repository "
	"TEXT NOT NULL REFERENCES repository (name) ON DELETE CASCADE, seq INTEGER NOT NULL, "
	"url TEXT NOT NULL, PRIMARY KEY (repository, seq))\n"
	"table revoked_keys revoked_keys CREATE TABLE revoked_keys ( key_id TEXT PRIMARY KEY "
	"COLLATE NOCASE, source TEXT NOT NULL)\n"
	"table subscription_keys subscription_keys CREATE TABLE subscription_keys ( seq "
	"INTEGER PRIMARY KEY, key_id TEXT NOT NULL, key_text TEXT NOT NULL, activated TEXT NOT "
	"NULL, ended TEXT, ended_why TEXT CHECK (ended_why IN ('replaced', 'deactivated')))\n"
	"table txn txn CREATE TABLE txn (id INTEGER PRIMARY KEY, action TEXT NOT NULL, package "
	"TEXT NOT NULL, started TEXT NOT NULL, done_sql TEXT, rows_format INTEGER, version "
	"TEXT, gen_n INTEGER, gen_command TEXT, gen_summary TEXT)\n"
	"table txn_op txn_op CREATE TABLE txn_op (txn INTEGER NOT NULL REFERENCES txn (id) ON "
	"DELETE CASCADE, seq INTEGER NOT NULL, kind TEXT NOT NULL, host TEXT NOT NULL, temp "
	"TEXT, kept TEXT, old_sha256 TEXT, new_sha256 TEXT, path TEXT, package TEXT, size "
	"INTEGER, config INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (txn, seq))\n"
	"table txn_package txn_package CREATE TABLE txn_package (txn INTEGER NOT NULL "
	"REFERENCES txn (id) ON DELETE CASCADE, seq INTEGER NOT NULL, name TEXT NOT NULL, "
	"version TEXT NOT NULL, released TEXT NOT NULL, kind TEXT NOT NULL, entitlement TEXT, "
	"summary TEXT NOT NULL, manifest TEXT NOT NULL, PRIMARY KEY (txn, seq))\n"
	"table txn_remove txn_remove CREATE TABLE txn_remove (txn INTEGER NOT NULL REFERENCES "
	"txn (id) ON DELETE CASCADE, name TEXT NOT NULL, PRIMARY KEY (txn, name))\n";

/* FNV-1a of steps[0..version), each with its NUL. */
static uint64_t steps_fnv(const char *const *steps, int version)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (int v = 0; v < version; v++)
		for (const char *p = steps[v];; p++) {
			h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
			if (!*p)
				break;
		}
	return h;
}

const char *db_schema_rows_known(const char *const *steps, int version)
{
	return version == KNOWN_VERSION && steps_fnv(steps, version) == KNOWN_FNV ? known_rows
										    : NULL;
}

uint64_t db_schema_fingerprint(const char *const *steps, int version)
{
	return steps_fnv(steps, version);
}

int db_check_schema(struct db *db, const char *const *steps, int version, const char *what,
		    struct wd_err *err)
{
	int want = 0;
	while (steps[want])
		want++;
	if (version > want)
		return 0; /* a newer build's file: db_migrate says so */
	int r = 0;
	struct wd_buf have = {0}, expect = {0};
	const char *known = db_schema_rows_known(steps, version);
	if (known)
		wd_buf_add(&expect, known, sizeof known_rows - 1);
	else
		r = db_schema_rows_built(steps, version, what, &expect, err);
	if (!r && schema_rows(db->h, &have) < 0)
		r = wd_err_set(err, WD_ETRUST, "%s: the %s's schema cannot be read: %s; move the "
			       "file aside to start afresh", db->path, what, sqlite3_errmsg(db->h));
	if (!r && (have.len != expect.len || (have.len && memcmp(have.p, expect.p, have.len)))) {
		/* the first line that differs, for the message */
		const char *a = have.p ? have.p : "", *b = expect.p ? expect.p : "";
		while (*a && *a == *b)
			a++, b++;
		while (a > (have.p ? have.p : "") && a[-1] != '\n')
			a--;
		char shown[120];
		snprintf(shown, sizeof shown, "%.*s", (int)strcspn(a, "\n"), a);
		r = wd_err_set(err, WD_ETRUST, "%s: the %s's schema (version %d) is not the one "
			       "warpdrv writes%s%s; it is not read (a damaged or crafted file: move "
			       "it aside to start afresh)", db->path, what, version,
			       *shown ? ", at: " : "", shown);
	}
	wd_buf_free(&have);
	wd_buf_free(&expect);
	return r;
}

/* The oldest SQLite warpdrv runs on (the name sqlite_schema). */
#define DB_SQLITE_MIN 3033000
_Static_assert(SQLITE_VERSION_NUMBER >= DB_SQLITE_MIN, "warpdrv is built with SQLite 3.33 or later");

int db_sqlite_ready(const char *path, struct wd_err *err)
{
	int v = sqlite3_libversion_number();
	if (v >= DB_SQLITE_MIN)
		return 0;
	return wd_err_set(err, WD_EFAIL, "%s: cannot open: the SQLite library is %d.%d.%d, and "
			  "warpdrv needs 3.33 or later; install a newer package libsqlite3-0", path,
			  v / 1000000, v / 1000 % 1000, v % 1000);
}

/* Why leaf could not be opened (fs_leaf_open's errno and *st). */
static int open_error(const char *path, int e, const struct stat *st, struct wd_err *err)
{
	if (e == EMLINK)
		return wd_err_set(err, WD_EFAIL, "%s: has %lu hard links; warpdrv writes this file "
				  "in place and refuses one that may be linked to a file elsewhere "
				  "(remove the other links, or this file)", path,
				  (unsigned long)st->st_nlink);
	if (st->st_mode && !S_ISREG(st->st_mode))
		return wd_not_plain(err, path, st->st_mode);
	if (e == EROFS)
		return wd_err_set(err, WD_EFAIL, "%s: the volume is read-only, and this command "
				  "writes to it: mount it read-write (the commands that only read "
				  "work as it is)", path);
	return wd_err_set(err, WD_EFAIL, "%s: cannot open: %s", path, strerror(e));
}

/* What SQLite would open by name beside the database: a journal must be a
 * plain file with one link; a write-ahead log or its shared memory is never
 * there, since warpdrv keeps a rollback journal. */
static int sidecars(int dfd, const char *name, const char *path, struct wd_err *err)
{
	static const char *const never[] = {"-wal", "-shm"};
	char leaf[300];
	struct stat st;
	for (size_t i = 0; i < 2; i++) {
		snprintf(leaf, sizeof leaf, "%s%s", name, never[i]);
		if (fs_leaf_lstat(dfd, leaf, &st) == 0)
			return wd_err_set(err, WD_ETRUST, "%s%s: %s beside the database, where warpdrv "
					  "never writes one (it keeps a rollback journal); nothing was "
					  "read from it or done with it: move it aside", path, never[i],
					  S_ISREG(st.st_mode) ? "a file" : wd_file_kind(st.st_mode));
	}
	snprintf(leaf, sizeof leaf, "%s-journal", name);
	if (fs_leaf_lstat(dfd, leaf, &st) == 0 && (!S_ISREG(st.st_mode) || st.st_nlink != 1))
		return wd_err_set(err, WD_ETRUST, "%s-journal: is %s; warpdrv plays back only a "
				  "journal that is a plain file with one link: nothing was read from "
				  "it; move it aside", path, S_ISREG(st.st_mode)
				  ? "a file with other hard links" : wd_file_kind(st.st_mode));
	return 0;
}

/* A header that says WAL (bytes 18 and 19: 2), which warpdrv never sets:
 * SQLite would look for the -wal and -shm by name. */
static int header_wal(int fd, const char *path, struct wd_err *err)
{
	unsigned char h[20];
	if (pread(fd, h, sizeof h, 0) == (ssize_t)sizeof h && !memcmp(h, "SQLite format 3", 16) &&
	    (h[18] == 2 || h[19] == 2))
		return wd_err_set(err, WD_ETRUST, "%s: the header says write-ahead-log mode (WAL), "
				  "which warpdrv never sets; it is not opened (a crafted or foreign "
				  "file): move it aside to start afresh", path);
	return 0;
}

/* Opens the file name in the folder dir below the volume's root: the folder
 * by handle (fs/), the file through fs_leaf_open in it, never following a
 * link, a plain file with one link (it is written in place); what lies
 * beside it checked; then SQLite opens it through a VFS of its own that
 * reads and writes those descriptors alone. The first read happens here,
 * so that a journal SQLite would play back, and anything its VFS refuses
 * then, is told before the caller asks a thing. */
int db_open_at(struct db *db, const struct fs_root *fs, const char *dir, const char *name,
	       int flags, struct wd_err *err)
{
	memset(db, 0, sizeof *db);
	db->path = wd_path_join(dir, name);
	int r = db_sqlite_ready(db->path, err); /* before anything is made */
	int dfd = r ? -1 : fs_open_dir(fs, dir, err);
	if (!r && dfd < 0)
		r = dfd;
	bool rw = (flags & SQLITE_OPEN_READWRITE) != 0, create = (flags & SQLITE_OPEN_CREATE) != 0;
	int fd = -1;
	if (!r) {
		struct stat st;
		fd = fs_leaf_open(dfd, name, rw, create && rw, 0644, &st);
		if (fd < 0 && create && rw && errno == EEXIST)
			fd = fs_leaf_open(dfd, name, rw, false, 0, &st);
		if (fd < 0)
			r = open_error(db->path, errno, &st, err);
	}
	if (!r)
		r = header_wal(fd, db->path, err);
	if (!r)
		r = sidecars(dfd, name, db->path, err);
	if (r) {
		if (fd >= 0)
			close(fd);
		if (dfd >= 0)
			close(dfd);
		free(db->path);
		db->path = NULL;
		return r;
	}
	db->vfs = db_vfs_new(dfd, fd, name, db->path, !rw); /* owns both now */
	if (!db->vfs)
		r = wd_err_set(err, WD_EFAIL, "%s: SQLite has no default file layer", db->path);
	else if (sqlite3_open_v2(db_vfs_file(db->vfs), &db->h, /* confined: by handle */
				 flags & ~(SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_URI),
				 db_vfs_name(db->vfs)) != SQLITE_OK)
		r = db_fail(db, err, "cannot open");
	db->fs = fs;
	if (!r) {
		db_harden(db);
		sqlite3_busy_timeout(db->h, 5000); /* a writer's commit: waited for */
		r = db_exec(db, "PRAGMA temp_store = MEMORY; SELECT count(*) FROM sqlite_schema;",
			    err);
	}
	if (r)
		db_close(db);
	return r;
}

/* A read-only connection's database of an older schema, migrated in a copy
 * in memory: the commands that only read see what a writer would. */
static int into_memory(struct db *db, struct wd_err *err)
{
	sqlite3 *mem = NULL;
	if (sqlite3_open_v2(":memory:", &mem, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
	    SQLITE_OK) {
		sqlite3_close(mem);
		return wd_err_set(err, WD_EFAIL, "cannot open a database in memory");
	}
	sqlite3_backup *b = sqlite3_backup_init(mem, "main", db->h, "main");
	int s = b ? sqlite3_backup_step(b, -1) : SQLITE_ERROR;
	if (b)
		sqlite3_backup_finish(b);
	if (s != SQLITE_DONE) {
		int r = db_fail(db, err, "cannot read");
		sqlite3_close(mem);
		return r;
	}
	struct db_vfs *v = db->vfs;
	sqlite3_close(db->h);
	db_vfs_free(v);
	db->vfs = NULL;
	db->h = mem;
	db_harden(db);
	return 0;
}

static int open_volume_db(struct db *db, const struct volume *v, bool create, bool readonly,
			  bool *exists, struct wd_err *err)
{
	memset(db, 0, sizeof *db);
	char *dir = NULL;
	bool found = false;
	int r = volume_resolve(v, WD_STATE_DIR, &dir, &found, err);
	if (r)
		return r;
	char *path = wd_path_join(dir, WD_DB_NAME);
	bool have = found && fs_exists(&v->fs, path);
	if (exists)
		*exists = have;
	if (!have && !create) {
		free(path);
		free(dir);
		return 0;
	}
	/* no folder is made for a database SQLite could not open */
	r = db_sqlite_ready(path, err);
	free(path);
	if (r) {
		free(dir);
		return r;
	}
	if (!found && (r = volume_mkdirs(v, dir, err))) {
		free(dir);
		return r;
	}
	int flags = readonly ? SQLITE_OPEN_READONLY
		    : create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READWRITE;
	r = db_open_at(db, &v->fs, dir, WD_DB_NAME, flags, err);
	free(dir);
	if (r)
		return r;
	/* synchronous = EXTRA: besides FULL's flushes, SQLite flushes the folder
	 * after it unlinks the journal at a commit (DELETE journal mode), so
	 * that a commit warpdrv reports is on stable storage: a lost unlink
	 * would leave a hot journal that rolls the commit back. */
	int version = 0, newest = 0;
	while (db_schema_steps[newest])
		newest++;
	if ((r = user_version(db, &version, err)) ||
	    (r = db_check_schema(db, db_schema_steps, version, "database", err)) ||
	    (readonly && version < newest && (r = into_memory(db, err))) ||
	    (r = db_exec(db, readonly && db->vfs ? "PRAGMA foreign_keys = ON;"
			     : "PRAGMA journal_mode = DELETE; PRAGMA synchronous = EXTRA; "
			       "PRAGMA foreign_keys = ON;", err)) ||
	    (r = migrate(db, err))) { /* read-only: nothing left to migrate on the file */
		db_close(db);
		return r;
	}
	if (exists)
		*exists = true;
	return 0;
}

int db_open(struct db *db, const struct volume *v, bool create, bool *exists,
	    struct wd_err *err)
{
	return open_volume_db(db, v, create, false, exists, err);
}

int db_open_read(struct db *db, const struct volume *v, bool *exists, struct wd_err *err)
{
	return open_volume_db(db, v, false, true, exists, err);
}

void db_close(struct db *db)
{
	for (size_t i = 0; i < DB_KEPT; i++)
		if (db->kept[i].st)
			sqlite3_finalize(db->kept[i].st);
	if (db->h)
		sqlite3_close(db->h);
	db_vfs_free(db->vfs); /* after the connection on it */
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
