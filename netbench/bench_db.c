#include "netbench/bench_db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/buf.h"
#include "common/file.h"

/* Schema steps by PRAGMA user_version: append, never edit. */
static const char *const steps[] = {
	"CREATE TABLE run ("
	"  id INTEGER PRIMARY KEY,"
	"  label TEXT NOT NULL,"
	"  source TEXT NOT NULL CHECK (source IN ('client', 'server', 'import')),"
	"  proto TEXT NOT NULL CHECK (proto IN ('tcp', 'udp')),"
	"  peer TEXT NOT NULL,"
	"  recorded TEXT NOT NULL);"
	"CREATE INDEX run_label ON run (label, id);"
	"CREATE TABLE result ("
	"  run INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,"
	"  block INTEGER NOT NULL,"
	"  tx_rate REAL, tx_bytes INTEGER, tx_secs REAL,"  /* bytes per second; bytes and */
	"  rx_rate REAL, rx_bytes INTEGER, rx_secs REAL,"  /* seconds NULL when imported */
	"  PRIMARY KEY (run, block));",
	/* 2: the driver a run was measured with (bench --root), UDP's loss. */
	"ALTER TABLE run ADD COLUMN driver TEXT;"
	"ALTER TABLE run ADD COLUMN version TEXT;"
	"ALTER TABLE result ADD COLUMN tx_loss INTEGER;"
	"ALTER TABLE result ADD COLUMN rx_loss INTEGER;",
	NULL,
};

char *bench_db_default_path(const char *x, const char *home)
{
	if (x && *x == '/')
		return wd_xasprintf("%s/warpdrv/bench.db", x);
	if (home && *home)
		return wd_xasprintf("%s/.local/state/warpdrv/bench.db", home);
	return NULL;
}

int bench_db_open(struct db *db, const char *path, bool create, bool *exists,
		  struct wd_err *err)
{
	memset(db, 0, sizeof *db);
	db->path = wd_xstrdup(path);
	bool have = wd_exists(path);
	if (exists)
		*exists = have;
	if (!have && !create)
		return 0;
	int r;
	if (!have) {
		char *dir = wd_dirname(path);
		r = wd_mkdirs(dir, err);
		free(dir);
		if (r) {
			bench_db_close(db);
			return r;
		}
	}
	int flags = create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
	if (sqlite3_open_v2(path, &db->h, flags, NULL) != SQLITE_OK) {
		r = db_fail(db, err, "cannot open the results database");
		bench_db_close(db);
		return r;
	}
	sqlite3_busy_timeout(db->h, 5000);
	/* A file that is not SQLite shows here, on the first read. */
	if ((r = db_exec(db, "PRAGMA foreign_keys = ON", err)) ||
	    (create && (r = db_migrate(db, steps, "results", err)))) {
		bench_db_close(db);
		return r;
	}
	if (!create) {
		sqlite3_stmt *st;
		if ((r = db_prepare(db, "SELECT count(*) FROM run", &st, err))) {
			bench_db_close(db);
			return wd_err_prefix(err, "not a warpdrv bench results file");
		}
		sqlite3_finalize(st);
	}
	if (exists)
		*exists = true;
	return 0;
}

void bench_db_close(struct db *db)
{
	if (db->h)
		sqlite3_close(db->h);
	free(db->path);
	memset(db, 0, sizeof *db);
}

/* rate, bytes, seconds at col, col + 1, col + 2; the loss at loss_col. */
static void bind_dir(sqlite3_stmt *st, int col, int loss_col, const struct netio_dir *d)
{
	if (!d->set)
		return; /* stays NULL */
	sqlite3_bind_double(st, col, d->rate);
	if (d->secs > 0) {
		sqlite3_bind_int64(st, col + 1, (sqlite3_int64)d->bytes);
		sqlite3_bind_double(st, col + 2, d->secs);
	}
	if (d->has_loss)
		sqlite3_bind_int(st, loss_col, d->loss);
}

static void bind_opt_text(sqlite3_stmt *st, int col, const char *s)
{
	if (*s)
		sqlite3_bind_text(st, col, s, -1, SQLITE_STATIC);
}

static int add_results(struct db *db, const struct bench_run *run, struct wd_err *err)
{
	sqlite3_stmt *st;
	int r = db_prepare(db, "INSERT INTO result (run, block, tx_rate, tx_bytes, tx_secs, "
			    "rx_rate, rx_bytes, rx_secs, tx_loss, rx_loss) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			    &st, err);
	if (r)
		return r;
	for (int i = 0; i < run->l.n && !r; i++) {
		const struct netio_result *res = &run->l.r[i];
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
		sqlite3_bind_int64(st, 1, run->id);
		sqlite3_bind_int(st, 2, res->block);
		bind_dir(st, 3, 9, &res->tx);
		bind_dir(st, 6, 10, &res->rx);
		if (sqlite3_step(st) != SQLITE_DONE)
			r = db_fail(db, err, "cannot record a result");
	}
	sqlite3_finalize(st);
	return r;
}

int bench_db_add(struct db *db, struct bench_run *run, struct wd_err *err)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(run->recorded, sizeof run->recorded, "%Y-%m-%dT%H:%M:%SZ", &tm);
	int r = db_exec(db, "BEGIN IMMEDIATE", err);
	if (r)
		return r;
	sqlite3_stmt *st;
	if ((r = db_prepare(db, "INSERT INTO run (label, source, proto, peer, recorded, driver, "
			     "version) VALUES (?, ?, ?, ?, ?, ?, ?)", &st, err)))
		goto fail;
	sqlite3_bind_text(st, 1, run->label, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, run->source, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, run->l.proto == NETIO_UDP ? "udp" : "tcp", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, run->peer, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, run->recorded, -1, SQLITE_STATIC);
	bind_opt_text(st, 6, run->driver);
	bind_opt_text(st, 7, run->version);
	if (sqlite3_step(st) != SQLITE_DONE)
		r = db_fail(db, err, "cannot record the run");
	sqlite3_finalize(st);
	if (r)
		goto fail;
	run->id = sqlite3_last_insert_rowid(db->h);
	if ((r = add_results(db, run, err)) || (r = db_exec(db, "COMMIT", err)))
		goto fail;
	return 0;
fail:
	sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
	return r;
}

int bench_db_labels(struct db *db, char ***labels, int *n, struct wd_err *err)
{
	*labels = NULL;
	*n = 0;
	sqlite3_stmt *st;
	int r = db_prepare(db, "SELECT label FROM run GROUP BY label ORDER BY min(id)", &st, err);
	if (r)
		return r;
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		*labels = wd_xrealloc(*labels, sizeof **labels * (size_t)(*n + 1));
		(*labels)[(*n)++] = wd_xstrdup((const char *)sqlite3_column_text(st, 0));
	}
	if (s != SQLITE_DONE)
		r = db_fail(db, err, "cannot read the labels");
	sqlite3_finalize(st);
	return r;
}

static void column_dir(sqlite3_stmt *st, int col, int loss_col, struct netio_dir *d)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return;
	d->set = true;
	d->rate = sqlite3_column_double(st, col);
	d->bytes = (uint64_t)sqlite3_column_int64(st, col + 1);
	d->secs = sqlite3_column_double(st, col + 2);
	if (sqlite3_column_type(st, loss_col) != SQLITE_NULL) {
		d->has_loss = true;
		d->loss = sqlite3_column_int(st, loss_col);
	}
}

static void copy_text(char *out, size_t n, sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);
	snprintf(out, n, "%s", t ? (const char *)t : "");
}

/* The runs of a protocol under label, newest first, at most max of them:
 * their rows (no results yet). */
static int run_rows(struct db *db, const char *label, enum netio_proto proto, int max,
		    struct bench_run *runs, int *n, struct wd_err *err)
{
	sqlite3_stmt *st;
	*n = 0;
	int r = db_prepare(db, "SELECT id, source, peer, recorded, driver, version FROM run "
			    "WHERE label = ? AND proto = ? ORDER BY id DESC LIMIT ?", &st, err);
	if (r)
		return r;
	sqlite3_bind_text(st, 1, label, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, proto == NETIO_UDP ? "udp" : "tcp", -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 3, max);
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW && *n < max) {
		struct bench_run *run = &runs[(*n)++];
		memset(run, 0, sizeof *run);
		run->id = sqlite3_column_int64(st, 0);
		snprintf(run->label, sizeof run->label, "%s", label);
		run->l.proto = proto;
		copy_text(run->source, sizeof run->source, st, 1);
		copy_text(run->peer, sizeof run->peer, st, 2);
		copy_text(run->recorded, sizeof run->recorded, st, 3);
		copy_text(run->driver, sizeof run->driver, st, 4);
		copy_text(run->version, sizeof run->version, st, 5);
	}
	if (s != SQLITE_DONE && s != SQLITE_ROW)
		r = db_fail(db, err, "cannot read the runs");
	sqlite3_finalize(st);
	return r;
}

static int run_results(struct db *db, struct bench_run *run, struct wd_err *err)
{
	sqlite3_stmt *st;
	int r;
	if ((r = db_prepare(db, "SELECT block, tx_rate, tx_bytes, tx_secs, rx_rate, rx_bytes, "
			     "rx_secs, tx_loss, rx_loss FROM result WHERE run = ? ORDER BY block",
			     &st, err)))
		return r;
	sqlite3_bind_int64(st, 1, run->id);
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW && run->l.n < NETIO_MAX_RESULTS) {
		struct netio_result *res = &run->l.r[run->l.n++];
		res->block = sqlite3_column_int(st, 0);
		column_dir(st, 1, 7, &res->tx);
		column_dir(st, 4, 8, &res->rx);
	}
	if (s != SQLITE_DONE && s != SQLITE_ROW)
		r = db_fail(db, err, "cannot read the results");
	sqlite3_finalize(st);
	return r;
}

int bench_db_recent(struct db *db, const char *label, enum netio_proto proto, int max,
		    struct bench_run *runs, int *n, struct wd_err *err)
{
	int r = run_rows(db, label, proto, max, runs, n, err);
	for (int i = 0; i < *n && !r; i++)
		r = run_results(db, &runs[i], err);
	for (int i = 0, j = *n - 1; i < j; i++, j--) { /* oldest first */
		struct bench_run t = runs[i];
		runs[i] = runs[j];
		runs[j] = t;
	}
	return r;
}
