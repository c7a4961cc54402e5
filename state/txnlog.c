#include "state/txnlog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/buf.h"

static const char *const kind_names[] = {"mkdir", "put", "delete", "restore", "replace",
					    "retire"};

#define STATE_PREFIX WD_STATE_DIR

/* ---- writing the intent ---- */

static int insert_txn(struct db *db, const struct txnlog_intent *in, long long *id,
		      struct wd_err *err)
{
	sqlite3_stmt *st;
	int r = db_prepare(db, "INSERT INTO txn (action, package, started, version, rows_format, "
			       "gen_n, gen_command, gen_summary) VALUES (?, ?, datetime('now'), ?, ?, "
			       "?, ?, ?)", &st, err);
	if (r)
		return r;
	sqlite3_bind_text(st, 1, in->install ? "install" : "remove", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, in->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, in->version, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 4, TXNLOG_ROWS_FORMAT);
	if (in->gen_n > 0) {
		sqlite3_bind_int64(st, 5, in->gen_n);
		sqlite3_bind_text(st, 6, in->gen_command, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 7, in->gen_summary, -1, SQLITE_STATIC);
	}
	if (sqlite3_step(st) != SQLITE_DONE)
		r = db_fail(db, err, "cannot record the transaction");
	sqlite3_finalize(st);
	*id = sqlite3_last_insert_rowid(db->h);
	return r;
}

static void bind_op(sqlite3_stmt *st, long long id, size_t i, const struct txnlog_op *o)
{
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
	sqlite3_bind_text(st, 3, kind_names[o->kind], -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, o->host, -1, SQLITE_STATIC);
	if (o->kind != TXNLOG_MKDIR)
		sqlite3_bind_text(st, 5, sqlite3_mprintf("%s.wd-new", o->host), -1, sqlite3_free);
	sqlite3_bind_text(st, 6, o->kept, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, o->kept ? o->old_sha : NULL, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 8, o->kind == TXNLOG_MKDIR ? NULL : o->new_sha, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 9, o->path, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 10, o->package, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 11, o->size);
	sqlite3_bind_int(st, 12, o->config);
}

static int insert_ops(struct db *db, const struct txnlog_intent *in, long long id,
		      struct wd_err *err)
{
	sqlite3_stmt *st;
	int r = db_prepare(db, "INSERT INTO txn_op (txn, seq, kind, host, temp, kept, old_sha256, "
			       "new_sha256, path, package, size, config) VALUES "
			       "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", &st, err);
	for (size_t i = 0; !r && i < in->nops; i++) {
		bind_op(st, id, i, &in->ops[i]);
		if (sqlite3_step(st) != SQLITE_DONE)
			r = db_fail(db, err, "cannot record the transaction");
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
	}
	if (st)
		sqlite3_finalize(st);
	return r;
}

static int insert_pkgs(struct db *db, const struct txnlog_intent *in, long long id,
		       struct wd_err *err)
{
	sqlite3_stmt *st;
	int r = db_prepare(db, "INSERT INTO txn_package (txn, seq, name, version, released, kind, "
			       "entitlement, summary, manifest) VALUES (?, ?, ?, ?, "
			       "date(? * 86400, 'unixepoch'), ?, ?, ?, ?)", &st, err);
	for (size_t i = 0; !r && i < in->npkgs; i++) {
		const struct txnlog_pkg *p = &in->pkgs[i];
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
		sqlite3_bind_text(st, 3, p->name, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, p->version, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 5, p->released);
		sqlite3_bind_text(st, 6, p->kind, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 7, p->entitlement, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 8, p->summary, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 9, p->manifest, (int)p->manifest_len, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			r = db_fail(db, err, "cannot record the transaction");
		sqlite3_reset(st);
	}
	if (st)
		sqlite3_finalize(st);
	return r;
}

static int insert_removes(struct db *db, const struct txnlog_intent *in, long long id,
			  struct wd_err *err)
{
	sqlite3_stmt *st;
	int r = in->nremoves ? db_prepare(db, "INSERT OR IGNORE INTO txn_remove (txn, name) "
					      "VALUES (?, ?)", &st, err) : 0;
	for (size_t i = 0; !r && i < in->nremoves; i++) {
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_text(st, 2, in->removes[i], -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			r = db_fail(db, err, "cannot record the transaction");
		sqlite3_reset(st);
	}
	if (in->nremoves && st)
		sqlite3_finalize(st);
	return r;
}

int txnlog_insert(struct db *db, const struct txnlog_intent *in, long long *id,
		  struct wd_err *err)
{
	int r = insert_txn(db, in, id, err);
	if (!r)
		r = insert_ops(db, in, *id, err);
	if (!r)
		r = insert_pkgs(db, in, *id, err);
	if (!r)
		r = insert_removes(db, in, *id, err);
	return r;
}

/* ---- what the commit records, made from the intent's rows ---- */

static int exec_id(struct db *db, const char *sql, long long id, const char *text,
		   struct wd_err *err)
{
	sqlite3_stmt *st;
	int r = db_prepare(db, sql, &st, err);
	if (r)
		return r;
	sqlite3_bind_int64(st, 1, id);
	if (text)
		sqlite3_bind_text(st, 2, text, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		r = db_fail(db, err, "cannot record the transaction as done");
	sqlite3_finalize(st);
	return r;
}

static const char *const done_remove[] = {
	"DELETE FROM package WHERE name = (SELECT package FROM txn WHERE id = ?1)",
	"INSERT INTO history (at, action, package, version) SELECT datetime('now'), 'remove', "
	"package, coalesce(version, '-') FROM txn WHERE id = ?1",
	NULL,
};

/* An upgrade's history row says so (a "reinstall" when the version is the
 * one installed: warpdrv reinstall); the package row is updated in place
 * (a delete would take its file rows with it); a rewritten file keeps the
 * original it had replaced. */
static const char *const done_install[] = {
	/* before the package rows change: was it installed already? */
	"INSERT OR IGNORE INTO generation_package (n, name, version, action) SELECT t.gen_n, "
	"p.name, p.version, CASE WHEN EXISTS (SELECT 1 FROM package q WHERE q.name = p.name AND "
	"q.version = p.version) THEN 'reinstall' WHEN p.name IN (SELECT name FROM package) "
	"THEN 'upgrade' ELSE 'install' END FROM txn t JOIN txn_package p ON p.txn = t.id "
	"WHERE t.id = ?1 AND t.gen_n IS NOT NULL ORDER BY p.seq",
	/* from_version: the version an upgrade replaces (NULL for an install
	 * and a reinstall) */
	"INSERT INTO history (at, action, package, version, from_version) SELECT datetime('now'), "
	"CASE WHEN EXISTS (SELECT 1 FROM package p WHERE p.name = txn_package.name AND "
	"p.version = txn_package.version) THEN 'reinstall' "
	"WHEN name IN (SELECT name FROM package) THEN 'upgrade' ELSE 'install' END, "
	"name, version, (SELECT p.version FROM package p WHERE p.name = txn_package.name AND "
	"p.version <> txn_package.version) FROM txn_package WHERE txn = ?1 ORDER BY seq",
	"INSERT INTO history (at, action, package, version) SELECT datetime('now'), 'remove', "
	"name, version FROM package WHERE name IN (SELECT name FROM txn_remove WHERE txn = ?1) "
	"AND name NOT IN (SELECT name FROM txn_package WHERE txn = ?1)",
	"INSERT INTO package (name, version, released, kind, entitlement, summary, manifest, "
	"installed) SELECT name, version, released, kind, entitlement, summary, manifest, "
	"datetime('now') FROM txn_package WHERE txn = ?1 ORDER BY seq "
	"ON CONFLICT (name) DO UPDATE SET version = excluded.version, released = "
	"excluded.released, kind = excluded.kind, entitlement = excluded.entitlement, "
	"summary = excluded.summary, manifest = excluded.manifest, installed = excluded.installed",
	"DELETE FROM file WHERE path IN (SELECT upper(path) FROM txn_op WHERE txn = ?1 AND "
	"kind = 'retire')",
	"UPDATE file SET package = o.package, host = o.host, size = o.size, sha256 = "
	"o.new_sha256 FROM txn_op o WHERE o.txn = ?1 AND o.kind = 'replace' AND "
	"file.path = upper(o.path)",
	"DELETE FROM package WHERE name IN (SELECT name FROM txn_remove WHERE txn = ?1) "
	"AND name NOT IN (SELECT name FROM txn_package WHERE txn = ?1)",
	"INSERT INTO file (path, package, host, size, sha256, kept, kept_sha256) SELECT "
	"upper(path), package, host, size, new_sha256, kept, old_sha256 FROM txn_op "
	"WHERE txn = ?1 AND kind = 'put' AND config = 0 AND package IS NOT NULL ORDER BY seq",
	"INSERT INTO generation (n, at, command, summary) SELECT gen_n, datetime('now'), "
	"gen_command, gen_summary FROM txn WHERE id = ?1 AND gen_n IS NOT NULL",
	NULL,
};

int txnlog_done(struct db *db, long long id, struct wd_err *err)
{
	sqlite3_stmt *st;
	int r = db_prepare(db, "SELECT action FROM txn WHERE id = ?", &st, err);
	if (r)
		return r;
	sqlite3_bind_int64(st, 1, id);
	bool install = sqlite3_step(st) == SQLITE_ROW &&
		       !strcmp((const char *)sqlite3_column_text(st, 0), "install");
	sqlite3_finalize(st);
	const char *const *sql = install ? done_install : done_remove;
	for (int i = 0; !r && sql[i]; i++)
		r = exec_id(db, sql[i], id, NULL, err);
	return r ? r : txnlog_forget(db, id, err);
}

/* A history row for transaction id that was undone or abandoned (action),
 * named as the user knows it: the command that began it (the generation's,
 * as "setup"; else "upgrade" when it replaces installed packages, or the
 * transaction's own install or remove) and the packages it held, in order
 * ("mmlem, acpi-psd"; a removal: the package it removes). */
static const char undone_sql[] =
	"INSERT INTO history (at, action, package, version, command, packages) SELECT "
	"datetime('now'), ?2, t.package, '-', coalesce(t.gen_command, CASE WHEN t.action = "
	"'install' AND EXISTS (SELECT 1 FROM txn_package k JOIN package p ON p.name = k.name "
	"WHERE k.txn = t.id) THEN 'upgrade' ELSE t.action END), coalesce((SELECT "
	"group_concat(name, ', ') FROM (SELECT name FROM txn_package WHERE txn = t.id ORDER BY "
	"seq)), t.package) FROM txn t WHERE t.id = ?1";

int txnlog_undone(struct db *db, long long id, const char *name, struct wd_err *err)
{
	(void)name; /* the row says more than the name: undone_sql */
	int r = exec_id(db, undone_sql, id, "undo", err);
	return r ? r : txnlog_forget(db, id, err);
}

int txnlog_abandoned(struct db *db, long long id, bool install, const char *name,
		     struct wd_err *err)
{
	(void)install;
	(void)name;
	int r = exec_id(db, undone_sql, id, "abandon", err);
	return r ? r : txnlog_forget(db, id, err);
}

int txnlog_forget(struct db *db, long long id, struct wd_err *err)
{
	return exec_id(db, "DELETE FROM txn WHERE id = ?1", id, NULL, err);
}

/* ---- reading it back, as hostile data ---- */

int txnlog_any(struct db *db, bool *any, struct wd_err *err)
{
	*any = false;
	if (!db->h)
		return 0;
	sqlite3_stmt *st;
	int r = db_prepare(db, "SELECT 1 FROM txn LIMIT 1", &st, err);
	if (r)
		return r;
	int s = sqlite3_step(st);
	*any = s == SQLITE_ROW;
	if (s != SQLITE_ROW && s != SQLITE_DONE)
		r = db_fail(db, err, "cannot read the interrupted transaction");
	sqlite3_finalize(st);
	return r;
}

int txnlog_before_upgrade(struct db *db, int version, struct wd_err *err)
{
	if (version < 3 || version >= 7)
		return 0;
	sqlite3_stmt *st;
	int r = db_prepare(db, "SELECT id, action, package FROM txn ORDER BY id LIMIT 1", &st, err);
	if (r)
		return r;
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *action = (const char *)sqlite3_column_text(st, 1);
		const char *name = (const char *)sqlite3_column_text(st, 2);
		r = wd_err_set(err, WD_EFAIL, "%s: interrupted transaction %lld (%s of %.40s) was "
			       "recorded by an older warpdrv (database schema %d), as SQL text this "
			       "version never runs; finish it with that warpdrv (any of its commands "
			       "does), then use this one: nothing was changed", db->path,
			       (long long)sqlite3_column_int64(st, 0), action ? action : "?",
			       name ? name : "?", version);
	}
	sqlite3_finalize(st);
	return r;
}

bool txnlog_path_ok(const char *s, size_t n, const char **why)
{
	if (!n)
		return *why = "it is empty", false;
	if (memchr(s, '\0', n))
		return *why = "it holds a NUL byte", false;
	if (memchr(s, '\\', n))
		return *why = "it holds a backslash", false;
	if (s[0] == '/')
		return *why = "it is absolute", false;
	for (size_t i = 0; i <= n;) {
		size_t e = i;
		while (e < n && s[e] != '/')
			e++;
		size_t len = e - i;
		if (!len)
			return *why = "it has an empty component", false;
		if ((len == 1 && s[i] == '.') || (len == 2 && s[i] == '.' && s[i + 1] == '.'))
			return *why = "it has a '.' or '..' component", false;
		i = e + 1;
	}
	return true;
}

/* Whether s is dir or lies below it, whatever the case (the volume ignores it). */
static bool under(const char *s, const char *dir)
{
	size_t n = strlen(dir);
	return !strncasecmp(s, dir, n) && (s[n] == '\0' || s[n] == '/');
}

/* The message of a refused row; the value (v NULL: none to show) is shown
 * printable and cut short. */
static int bad_row(struct db *db, long long id, long long seq, const char *col, const char *v,
		   size_t n, const char *why, struct wd_err *err)
{
	char shown[100] = "";
	if (v) {
		size_t k = 0;
		shown[k++] = ' ';
		shown[k++] = '\'';
		for (size_t i = 0; i < n && k + 6 < sizeof shown; i++)
			shown[k++] = v[i] >= 0x20 && v[i] < 0x7f ? v[i] : '?';
		if (k - 2 < n)
			k += (size_t)snprintf(shown + k, sizeof shown - k, "...");
		shown[k++] = '\'';
		shown[k] = '\0';
	}
	char row[40] = "";
	if (seq >= 0)
		snprintf(row, sizeof row, ", operation %lld", seq);
	return wd_err_set(err, WD_EFAIL, "%s: interrupted transaction %lld%s: %s%s %s; the "
			  "database is damaged or was made elsewhere, so nothing was done (move it "
			  "aside to start afresh)", db->path, id, row, col, shown, why);
}

/* A column as text: *s NULL for SQL NULL; anything but text or NULL is refused. */
static int col_text(struct db *db, sqlite3_stmt *st, int c, long long id, long long seq,
		    const char *name, const char **s, size_t *n, struct wd_err *err)
{
	int t = sqlite3_column_type(st, c);
	*s = NULL;
	*n = 0;
	if (t == SQLITE_NULL)
		return 0;
	if (t != SQLITE_TEXT)
		return bad_row(db, id, seq, name, NULL, 0, "is not text", err);
	*s = (const char *)sqlite3_column_text(st, c);
	*n = (size_t)sqlite3_column_bytes(st, c);
	return 0;
}

static int check_sha(struct db *db, long long id, long long seq, const char *name,
		     const char *s, size_t n, char out[WD_SHA256_HEX], struct wd_err *err)
{
	bool ok = n == WD_SHA256_HEX - 1;
	for (size_t i = 0; ok && i < n; i++)
		ok = (s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f');
	if (!ok)
		return bad_row(db, id, seq, name, s, n, "is not a SHA-256 in hex", err);
	memcpy(out, s, n);
	out[n] = '\0';
	return 0;
}

static int check_path(struct db *db, long long id, long long seq, const char *name,
		      const char *s, size_t n, struct wd_err *err)
{
	const char *why;
	if (!s)
		return bad_row(db, id, seq, name, NULL, 0, "is missing", err);
	if (!txnlog_path_ok(s, n, &why)) {
		char w[80];
		snprintf(w, sizeof w, "is not a path below the volume's root (%s)", why);
		return bad_row(db, id, seq, name, s, n, w, err);
	}
	return 0;
}

static int kind_of(const char *s, size_t n)
{
	for (int i = 0; s && i < (int)(sizeof kind_names / sizeof *kind_names); i++)
		if (n == strlen(kind_names[i]) && !memcmp(s, kind_names[i], n))
			return i;
	return -1;
}

/* Where an operation of this kind may point: never into warpdrv's state,
 * except a generation's folder; a copy only into kept/ or generations/. */
static int check_places(struct db *db, long long id, long long seq, const struct txnlog_op *o,
			struct wd_err *err)
{
	const char *host = o->host;
	if (under(host, STATE_PREFIX) &&
	    !(o->kind == TXNLOG_MKDIR && under(host, STATE_PREFIX "/generations")))
		return bad_row(db, id, seq, "host", host, strlen(host),
			       "lies in warpdrv's own state folder", err);
	if (o->kept && !under(o->kept, STATE_PREFIX "/kept") &&
	    !under(o->kept, STATE_PREFIX "/generations"))
		return bad_row(db, id, seq, "kept", o->kept, strlen(o->kept),
			       "is not in the kept or generations folder", err);
	return 0;
}

static int read_op(struct db *db, sqlite3_stmt *st, long long id, struct txnlog_op *o,
		   struct wd_err *err)
{
	long long seq = sqlite3_column_int64(st, 0);
	const char *s;
	size_t n;
	int r = col_text(db, st, 1, id, seq, "kind", &s, &n, err);
	int k = r ? 0 : kind_of(s, n);
	if (!r && k < 0)
		r = bad_row(db, id, seq, "kind", s ? s : "", n, "is not an operation warpdrv records",
			    err);
	o->kind = (enum txnlog_kind)k;
	if (!r && !(r = col_text(db, st, 2, id, seq, "host", &s, &n, err)) &&
	    !(r = check_path(db, id, seq, "host", s, n, err)))
		o->host = wd_xstrndup(s, n);
	if (!r && !(r = col_text(db, st, 3, id, seq, "kept", &s, &n, err)) && s &&
	    !(r = check_path(db, id, seq, "kept", s, n, err)))
		o->kept = wd_xstrndup(s, n);
	if (!r && (o->kept || o->kind == TXNLOG_RESTORE) &&
	    !(r = col_text(db, st, 4, id, seq, "old_sha256", &s, &n, err)))
		r = check_sha(db, id, seq, "old_sha256", s, n, o->old_sha, err);
	if (!r && o->kind == TXNLOG_RESTORE && !o->kept)
		r = bad_row(db, id, seq, "kept", NULL, 0, "is missing for a restore", err);
	if (!r && o->kind != TXNLOG_MKDIR &&
	    !(r = col_text(db, st, 5, id, seq, "new_sha256", &s, &n, err)))
		r = check_sha(db, id, seq, "new_sha256", s, n, o->new_sha, err);
	if (!r)
		r = check_places(db, id, seq, o, err);
	return r;
}

static int load_ops(struct db *db, struct txnlog_pending *p, struct wd_err *err)
{
	sqlite3_stmt *st;
	int r = db_prepare(db, "SELECT seq, kind, host, kept, old_sha256, new_sha256 FROM txn_op "
			       "WHERE txn = ? ORDER BY seq", &st, err);
	if (r)
		return r;
	sqlite3_bind_int64(st, 1, p->id);
	int s = SQLITE_DONE;
	while (!r && (s = sqlite3_step(st)) == SQLITE_ROW) {
		p->ops = wd_xrealloc(p->ops, (p->nops + 1) * sizeof *p->ops);
		struct txnlog_op *o = &p->ops[p->nops++];
		memset(o, 0, sizeof *o);
		r = read_op(db, st, p->id, o, err);
	}
	if (!r && s != SQLITE_DONE)
		r = db_fail(db, err, "cannot read the interrupted transaction");
	sqlite3_finalize(st);
	return r;
}

static int read_txn(struct db *db, sqlite3_stmt *st, struct txnlog_pending *p,
		    struct wd_err *err)
{
	p->id = sqlite3_column_int64(st, 0);
	const char *s;
	size_t n;
	int r = col_text(db, st, 1, p->id, -1, "action", &s, &n, err);
	bool install = s && n == 7 && !memcmp(s, "install", 7);
	if (!r && !install && !(s && n == 6 && !memcmp(s, "remove", 6)))
		r = bad_row(db, p->id, -1, "action", s ? s : "", n, "is neither install nor remove",
			    err);
	p->install = install;
	if (!r && !(r = col_text(db, st, 2, p->id, -1, "package", &s, &n, err))) {
		if (!s || !n || memchr(s, '\0', n))
			r = bad_row(db, p->id, -1, "package", s ? s : "", n, "is not a name", err);
		else
			p->name = wd_xstrndup(s, n);
	}
	if (!r && sqlite3_column_type(st, 3) != SQLITE_NULL)
		r = bad_row(db, p->id, -1, "done_sql", NULL, 0, "holds SQL text, which this warpdrv "
			    "never runs", err);
	if (!r && sqlite3_column_int64(st, 4) != TXNLOG_ROWS_FORMAT)
		r = bad_row(db, p->id, -1, "rows_format", NULL, 0, "is not the format this warpdrv "
			    "writes", err);
	return r;
}

int txnlog_load(struct db *db, struct txnlog_pending *p, bool *found, struct wd_err *err)
{
	memset(p, 0, sizeof *p);
	*found = false;
	if (!db->h)
		return 0;
	sqlite3_stmt *st;
	int r = db_prepare(db, "SELECT id, action, package, done_sql, rows_format FROM txn "
			       "ORDER BY id LIMIT 1", &st, err);
	if (r)
		return r;
	int s = sqlite3_step(st);
	if (s == SQLITE_ROW) {
		*found = true;
		r = read_txn(db, st, p, err);
	} else if (s != SQLITE_DONE) {
		r = db_fail(db, err, "cannot read the interrupted transaction");
	}
	sqlite3_finalize(st);
	if (!r && *found)
		r = load_ops(db, p, err);
	if (r)
		txnlog_pending_free(p);
	return r;
}

void txnlog_pending_free(struct txnlog_pending *p)
{
	for (size_t i = 0; i < p->nops; i++) {
		free(p->ops[i].path);
		free(p->ops[i].host);
		free(p->ops[i].kept);
		free(p->ops[i].package);
	}
	free(p->ops);
	free(p->name);
	memset(p, 0, sizeof *p);
}

int txnlog_packages(struct db *db, long long id, char ***names, size_t *n, struct wd_err *err)
{
	*names = NULL;
	*n = 0;
	sqlite3_stmt *st;
	int r = db_prepare(db, "SELECT name FROM txn_package WHERE txn = ?1 ORDER BY seq", &st, err);
	if (r)
		return r;
	sqlite3_bind_int64(st, 1, id);
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *t = sqlite3_column_text(st, 0);
		*names = wd_xrealloc(*names, (*n + 1) * sizeof **names);
		(*names)[(*n)++] = wd_xstrdup(t ? (const char *)t : "");
	}
	if (s != SQLITE_DONE)
		r = db_fail(db, err, "cannot read the packages of the interrupted transaction");
	sqlite3_finalize(st);
	return r;
}
