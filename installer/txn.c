#define _GNU_SOURCE /* sync_file_range, where there is one */
#include "installer/txn.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/file.h"
#include "common/hash.h"
#include "installer/unlink_batch.h"

/* ---- durable steps, each one a place the crash test can stop at ---- */

/* Counts a step without running the deletes queued before it (see
 * unlink_step); a crash injected here still finds them done. */
static void count_step(struct txn *t)
{
	if (++t->steps == t->crash_at) {
		struct wd_err e;
		unlink_batch_run(&e);
		_exit(TXN_CRASH_EXIT);
	}
	/* Each step changes the volume: the folder listings kept for resolving
	 * paths, and the last whole flush, no longer describe it. */
	volume_forget_folders();
	t->fs_unsynced = true;
}

/* Deletes queued by unlink_step happen before any other step. The helpers
 * that return an error run them first (run_unlinks) and report a failure;
 * here a failure stays with the batch, and the next helper, the commit at the
 * latest, reports it. */
static void step(struct txn *t)
{
	struct wd_err e;
	if (unlink_batch_pending())
		unlink_batch_run(&e);
	count_step(t);
}

static int run_unlinks(struct wd_err *err)
{
	return unlink_batch_run(err);
}

static char *abs_path(const struct txn *t, const char *rel)
{
	return wd_path_join(t->v->root, rel);
}

static int sys_fail(struct wd_err *err, const char *path, const char *what)
{
	return wd_err_set(err, WD_EFAIL, "%s: cannot %s: %s", path, what, strerror(errno));
}

/* Writes a file; its flush comes later, in flush_file, after all files of
 * the batch are written. */
static int write_file(struct txn *t, const char *path, const void *data, size_t len,
		      struct wd_err *err)
{
	int r = run_unlinks(err);
	if (r)
		return r;
	step(t);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return sys_fail(err, path, "create");
	const char *p = data;
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			r = sys_fail(err, path, "write");
			close(fd);
			return r;
		}
		p += w;
		len -= (size_t)w;
	}
#if !WD_HAVE_SYNC_FS && defined(SYNC_FILE_RANGE_WRITE)
	/* flushed one by one later: start the write-back now, so that the
	 * disk sees one batch rather than write-flush-write-flush */
	sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#endif
	close(fd);
	return 0;
}

/* Whether the path (st) lies on the volume's own file system and that can be
 * flushed as a whole. A folder mounted inside the volume is another file
 * system: what lies there is flushed on its own. */
static bool on_whole_fs(struct txn *t, const struct stat *st)
{
	if (!WD_HAVE_SYNC_FS)
		return false;
	if (!t->fs_dev_known) {
		struct stat rs;
		if (stat(t->v->root, &rs) < 0)
			return false;
		t->fs_dev = rs.st_dev;
		t->fs_dev_known = true;
	}
	return st->st_dev == t->fs_dev;
}

/* One flush of the volume's whole file system, covering every file written
 * and every folder changed so far: the first flush a batch asks for is this
 * step, the ones after it find nothing changed and are no steps. */
static int sync_fs_step(struct txn *t, struct wd_err *err)
{
	if (!t->fs_unsynced)
		return 0;
	step(t);
	int r = wd_sync_fs(t->v->root, err);
	if (!r)
		t->fs_unsynced = false;
	return r;
}

static int flush_file(struct txn *t, const char *path, struct wd_err *err)
{
	int r = run_unlinks(err);
	if (r)
		return r;
	struct stat st;
	if (stat(path, &st) < 0)
		return sys_fail(err, path, "open");
	if (on_whole_fs(t, &st))
		return sync_fs_step(t, err);
	step(t);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return sys_fail(err, path, "open");
	if (fsync(fd) < 0) {
		r = sys_fail(err, path, "flush");
		close(fd);
		return r;
	}
	close(fd);
	return 0;
}

static int write_flushed(struct txn *t, const char *path, const void *data, size_t len,
			 struct wd_err *err)
{
	int r = write_file(t, path, data, len, err);
	return r ? r : flush_file(t, path, err);
}

static int copy_flushed(struct txn *t, const char *from, const char *to, struct wd_err *err)
{
	struct wd_buf b = {0};
	int r = wd_read_file(from, 0, &b, err);
	if (!r)
		r = write_flushed(t, to, b.p, b.len, err);
	wd_buf_free(&b);
	return r;
}

static int rename_step(struct txn *t, const char *from, const char *to, struct wd_err *err)
{
	int r = run_unlinks(err);
	if (r)
		return r;
	step(t);
	if (rename(from, to) < 0)
		return sys_fail(err, to, "rename into place");
	return 0;
}

/* Whether path is a kept copy: those are deleted at once, their folder is
 * flushed right after (drop_kept). */
static bool is_kept_copy(const struct txn *t, const char *path)
{
	char *d = wd_dirname(path), *kept = abs_path(t, WD_KEPT_DIR);
	bool is = !strcmp(d, kept);
	free(d);
	free(kept);
	return is;
}

/* A delete of a package's file is queued with the others of the batch and
 * happens before the next step of another kind, in flush_dirs at the latest:
 * the deletes then overlap (installer/unlink_batch.h). */
static int unlink_step(struct txn *t, const char *path, struct wd_err *err)
{
	if (!wd_exists(path))
		return 0;
	if (!is_kept_copy(t, path)) {
		count_step(t);
		unlink_batch_add(path);
		return 0;
	}
	int r = run_unlinks(err);
	if (r)
		return r;
	step(t);
	if (unlink(path) < 0 && errno != ENOENT)
		return sys_fail(err, path, "delete");
	return 0;
}

/* Flushes each distinct parent folder of the given host paths once (or the
 * whole file system once, if anything changed since its last flush). */
static int flush_dirs(struct txn *t, char **paths, size_t n, struct wd_err *err)
{
	int r = run_unlinks(err);
	if (r)
		return r;
	char **done = wd_xcalloc(n ? n : 1, sizeof *done);
	size_t nd = 0;
	for (size_t i = 0; !r && i < n; i++) {
		if (!paths[i])
			continue;
		char *d = wd_dirname(paths[i]);
		bool seen = false;
		for (size_t k = 0; k < nd; k++)
			seen |= !strcmp(done[k], d);
		if (seen) {
			free(d);
			continue;
		}
		done[nd++] = d;
		struct stat st;
		if (stat(d, &st) < 0 || !S_ISDIR(st.st_mode))
			continue; /* undoing a run that stopped before making it */
		if (on_whole_fs(t, &st)) {
			r = sync_fs_step(t, err);
			continue;
		}
		step(t);
		r = wd_fsync_dir(d, err);
	}
	for (size_t k = 0; k < nd; k++)
		free(done[k]);
	free(done);
	return r;
}

static int commit_step(struct txn *t, struct wd_err *err)
{
	int r = run_unlinks(err);
	if (r)
		return r;
	step(t);
	return db_commit(&t->db, err);
}

static bool file_has_sha(const char *path, const char *sha)
{
	char hex[WD_SHA256_HEX];
	struct wd_err e;
	return wd_exists(path) && !wd_sha256_file(path, hex, &e) && !strcmp(hex, sha);
}

static char *temp_of(const char *host)
{
	return wd_xasprintf("%s.wd-new", host);
}

/* ---- the intent in the database ---- */

static const char *const kind_names[] = {"mkdir", "put", "delete", "restore"};

static int record_intent(struct txn *t, const struct txn_plan *plan, const char *done,
			 sqlite3_int64 *id, struct wd_err *err)
{
	struct db *db = &t->db;
	sqlite3_stmt *st = NULL;
	int r = db_begin(db, err);
	if (r)
		return r;
	if ((r = db_prepare(db, "INSERT INTO txn (action, package, started, done_sql) VALUES "
			    "(?, ?, datetime('now'), ?)", &st, err)))
		goto fail;
	sqlite3_bind_text(st, 1, plan->install ? "install" : "remove", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, plan->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, done, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE) {
		r = db_fail(db, err, "cannot record the transaction");
		goto fail;
	}
	sqlite3_finalize(st);
	*id = sqlite3_last_insert_rowid(db->h);
	if ((r = db_prepare(db, "INSERT INTO txn_op (txn, seq, kind, host, temp, kept, "
			    "old_sha256, new_sha256) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", &st, err)))
		goto fail;
	for (size_t i = 0; i < plan->nops; i++) {
		const struct txn_op *o = &plan->ops[i];
		char *temp = o->kind == TXN_MKDIR ? NULL : temp_of(o->host);
		sqlite3_bind_int64(st, 1, *id);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
		sqlite3_bind_text(st, 3, kind_names[o->kind], -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, o->host, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 5, temp, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 6, o->kept, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 7, o->kept ? o->old_sha : NULL, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 8, o->kind == TXN_MKDIR ? NULL : o->new_sha, -1, SQLITE_STATIC);
		int s = sqlite3_step(st);
		free(temp);
		sqlite3_reset(st);
		if (s != SQLITE_DONE) {
			r = db_fail(db, err, "cannot record the transaction");
			goto fail;
		}
	}
	sqlite3_finalize(st);
	return commit_step(t, err);
fail:
	sqlite3_finalize(st);
	db_rollback(db);
	return r;
}

/* ---- what the commit records ---- */

/* Appends SQL made with sqlite3_mprintf (%Q quotes a value, NULL as NULL). */
static void add_sql(struct wd_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
	if (!s)
		abort();
	wd_buf_adds(b, s);
	sqlite3_free(s);
}

/* The SQL that records a plan as done: the package and file rows, the
 * history, and what the caller adds (a generation). It is made before any
 * file is touched and stored with the intent, so that a recovery that must
 * finish an interrupted install rather than undo it records the same. */
static char *done_sql(const struct txn_plan *plan)
{
	struct wd_buf b = {0};
	if (!plan->install) {
		add_sql(&b, "DELETE FROM package WHERE name = %Q;", plan->name);
		add_sql(&b, "INSERT INTO history (at, action, package, version) VALUES "
			    "(datetime('now'), 'remove', %Q, %Q);", plan->name, plan->version);
	}
	const struct package *one[1] = {plan->pkg};
	const struct package **pkgs = plan->npkgs ? plan->pkgs : one;
	size_t npkgs = !plan->install ? 0 : plan->npkgs ? plan->npkgs : plan->pkg ? 1 : 0;
	for (size_t k = 0; k < npkgs; k++) {
		const struct pkg_manifest *m = &pkgs[k]->m;
		char *manifest = wd_xstrndup(pkgs[k]->manifest.p, pkgs[k]->manifest.len);
		add_sql(&b, "INSERT INTO package (name, version, released, kind, entitlement, "
			    "summary, manifest, installed) VALUES (%Q, %Q, date(%d * 86400, "
			    "'unixepoch'), %Q, %Q, %Q, %Q, datetime('now'));", m->name, m->version,
			m->released, pkg_kind_name(m->kind), m->entitlement, m->summary, manifest);
		free(manifest);
	}
	for (size_t i = 0; i < plan->nops && npkgs; i++) {
		const struct txn_op *o = &plan->ops[i];
		if (o->kind != TXN_PUT || o->config)
			continue;
		const struct package *owner = o->owner ? o->owner : plan->pkg;
		add_sql(&b, "INSERT INTO file (path, package, host, size, sha256, kept, kept_sha256) "
			    "VALUES (upper(%Q), %Q, %Q, %lld, %Q, %Q, %Q);", o->os2, owner->m.name,
			o->host, (long long)o->len, o->new_sha, o->kept, o->kept ? o->old_sha : NULL);
	}
	for (size_t k = 0; k < npkgs; k++)
		add_sql(&b, "INSERT INTO history (at, action, package, version) VALUES "
			    "(datetime('now'), 'install', %Q, %Q);", pkgs[k]->m.name,
			pkgs[k]->m.version);
	if (plan->done_extra)
		wd_buf_adds(&b, plan->done_extra);
	wd_buf_cstr(&b);
	return b.p;
}

/* Runs the done SQL and forgets the intent, in one commit: the point of no
 * return of an install. */
static int record_done(struct txn *t, const char *sql, sqlite3_int64 id, struct wd_err *err)
{
	struct db *db = &t->db;
	int r = db_begin(db, err);
	if (r)
		return r;
	char del[64];
	snprintf(del, sizeof del, "DELETE FROM txn WHERE id = %lld", (long long)id);
	if ((r = db_exec(db, sql, err)) || (r = db_exec(db, del, err))) {
		db_rollback(db);
		return r;
	}
	return commit_step(t, err);
}

/* ---- the file phases ---- */

static int put_files(struct txn *t, const struct txn_op *ops, size_t n, struct wd_err *err)
{
	char **tmps = wd_xcalloc(2 * n + 1, sizeof *tmps), **targets = tmps + n;
	int r = 0;
	for (size_t i = 0; !r && i < n; i++)
		if (ops[i].kind == TXN_MKDIR) {
			char *d = abs_path(t, ops[i].host);
			step(t);
			if (mkdir(d, 0755) < 0 && errno != EEXIST)
				r = sys_fail(err, d, "create folder");
			free(d);
		}
	/* copies of the foreign files first, so that anything renamed over
	 * later can always be put back */
	for (size_t i = 0; !r && i < n; i++)
		if (ops[i].kind == TXN_PUT && ops[i].kept) {
			char *from = abs_path(t, ops[i].host), *to = abs_path(t, ops[i].kept);
			r = copy_flushed(t, from, to, err);
			free(from);
			tmps[i] = to;
		}
	if (!r)
		r = flush_dirs(t, tmps, n, err);
	for (size_t i = 0; i < n; i++) {
		free(tmps[i]);
		tmps[i] = NULL;
	}
	for (size_t i = 0; !r && i < n; i++)
		if (ops[i].kind == TXN_PUT) {
			targets[i] = abs_path(t, ops[i].host);
			tmps[i] = temp_of(targets[i]);
			r = write_file(t, tmps[i], ops[i].data, ops[i].len, err);
		}
	for (size_t i = 0; !r && i < n; i++)
		if (tmps[i])
			r = flush_file(t, tmps[i], err);
	if (!r)
		r = flush_dirs(t, tmps, n, err);
	for (size_t i = 0; !r && i < n; i++)
		if (tmps[i])
			r = rename_step(t, tmps[i], targets[i], err);
	if (!r)
		r = flush_dirs(t, targets, n, err);
	for (size_t i = 0; i < 2 * n; i++)
		free(tmps[i]);
	free(tmps);
	return r;
}

/* Puts a kept file back over target unless target already holds it. */
static int restore_kept(struct txn *t, const struct txn_op *o, const char *target,
			struct wd_err *err)
{
	if (file_has_sha(target, o->old_sha))
		return 0;
	char *kept = abs_path(t, o->kept), *tmp = temp_of(target);
	int r = 0;
	if (!file_has_sha(kept, o->old_sha))
		r = wd_err_set(err, WD_EFAIL, "%s: the kept copy of %s is missing or damaged; "
			       "the original file cannot be put back", kept, target);
	if (!r)
		r = copy_flushed(t, kept, tmp, err);
	if (!r)
		r = rename_step(t, tmp, target, err);
	free(kept);
	free(tmp);
	return r;
}

static int drop_kept(struct txn *t, const struct txn_op *ops, size_t n, struct wd_err *err)
{
	int r = 0;
	bool any = false;
	for (size_t i = 0; !r && i < n; i++)
		if (ops[i].kept) {
			char *k = abs_path(t, ops[i].kept);
			r = unlink_step(t, k, err);
			free(k);
			any = true;
		}
	if (!r && any) {
		char *d = abs_path(t, WD_KEPT_DIR);
		step(t);
		r = wd_fsync_dir(d, err);
		free(d);
	}
	return r;
}

/* Removal, also the roll-forward of an interrupted one: idempotent. */
static int remove_files(struct txn *t, const struct txn_op *ops, size_t n, struct wd_err *err)
{
	char **targets = wd_xcalloc(n + 1, sizeof *targets);
	int r = 0;
	for (size_t i = 0; !r && i < n; i++) {
		if (ops[i].kind != TXN_RESTORE && ops[i].kind != TXN_DELETE)
			continue;
		targets[i] = abs_path(t, ops[i].host);
		char *tmp = temp_of(targets[i]);
		r = unlink_step(t, tmp, err); /* a partial copy from an earlier try */
		free(tmp);
		if (!r)
			r = ops[i].kind == TXN_RESTORE ? restore_kept(t, &ops[i], targets[i], err)
						       : unlink_step(t, targets[i], err);
	}
	if (!r)
		r = flush_dirs(t, targets, n, err);
	if (!r)
		r = drop_kept(t, ops, n, err);
	for (size_t i = 0; i < n; i++)
		free(targets[i]);
	free(targets);
	return r;
}

/* Undoes an install that did not reach its commit. */
static int undo_install(struct txn *t, const struct txn_op *ops, size_t n, struct wd_err *err)
{
	char **targets = wd_xcalloc(n + 1, sizeof *targets);
	int r = 0;
	for (size_t k = n; !r && k-- > 0;) {
		if (ops[k].kind != TXN_PUT)
			continue;
		targets[k] = abs_path(t, ops[k].host);
		char *tmp = temp_of(targets[k]);
		r = ops[k].kept ? restore_kept(t, &ops[k], targets[k], err)
				: unlink_step(t, targets[k], err);
		if (!r)
			r = unlink_step(t, tmp, err);
		free(tmp);
	}
	if (!r)
		r = flush_dirs(t, targets, n, err);
	if (!r)
		r = drop_kept(t, ops, n, err);
	for (size_t k = n; !r && k-- > 0;)
		if (ops[k].kind == TXN_MKDIR) {
			char *d = abs_path(t, ops[k].host);
			if (rmdir(d) == 0)
				r = wd_fsync_parent(d, err);
			free(d);
		}
	for (size_t i = 0; i < n; i++)
		free(targets[i]);
	free(targets);
	return r;
}

int txn_apply(struct txn *t, const struct txn_plan *plan, struct wd_err *err)
{
	sqlite3_int64 id = 0;
	char *done = done_sql(plan);
	int r = record_intent(t, plan, done, &id, err);
	if (r) {
		free(done);
		return r;
	}
	r = plan->install ? put_files(t, plan->ops, plan->nops, err)
			  : remove_files(t, plan->ops, plan->nops, err);
	if (!r) {
		r = record_done(t, done, id, err);
		free(done);
		return r;
	}
	free(done);
	/* A failure (disk full, say) is handled like a crash, at once. */
	struct wd_err e2;
	if (plan->install && !undo_install(t, plan->ops, plan->nops, &e2)) {
		char sql[64];
		snprintf(sql, sizeof sql, "DELETE FROM txn WHERE id = %lld", (long long)id);
		db_exec(&t->db, sql, &e2);
	}
	return r;
}

/* ---- recovery ---- */

static void free_ops(struct txn_op *ops, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(ops[i].os2);
		free(ops[i].host);
		free(ops[i].kept);
	}
	free(ops);
}

static int load_ops(struct db *db, sqlite3_int64 id, struct txn_op **out, size_t *n,
		    struct wd_err *err)
{
	sqlite3_stmt *st;
	int r = db_prepare(db, "SELECT kind, host, kept, old_sha256, new_sha256 FROM txn_op "
			   "WHERE txn = ? ORDER BY seq", &st, err);
	if (r)
		return r;
	sqlite3_bind_int64(st, 1, id);
	struct txn_op *ops = NULL;
	size_t k = 0;
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		ops = wd_xrealloc(ops, (k + 1) * sizeof *ops);
		struct txn_op *o = &ops[k++];
		memset(o, 0, sizeof *o);
		const char *kind = (const char *)sqlite3_column_text(st, 0);
		for (int i = 0; i < 4; i++)
			if (kind && !strcmp(kind, kind_names[i]))
				o->kind = (enum txn_op_kind)i;
		o->host = wd_xstrdup((const char *)sqlite3_column_text(st, 1));
		if (sqlite3_column_type(st, 2) != SQLITE_NULL)
			o->kept = wd_xstrdup((const char *)sqlite3_column_text(st, 2));
		if (sqlite3_column_type(st, 3) != SQLITE_NULL)
			snprintf(o->old_sha, sizeof o->old_sha, "%s", sqlite3_column_text(st, 3));
		if (sqlite3_column_type(st, 4) != SQLITE_NULL)
			snprintf(o->new_sha, sizeof o->new_sha, "%s", sqlite3_column_text(st, 4));
	}
	sqlite3_finalize(st);
	if (s != SQLITE_DONE) {
		free_ops(ops, k);
		return db_fail(db, err, "cannot read the interrupted transaction");
	}
	*out = ops;
	*n = k;
	return 0;
}

/* Can an interrupted install be undone: is every file it replaced either
 * still as it was or kept in a copy? */
static bool can_undo(struct txn *t, const struct txn_op *ops, size_t n)
{
	bool ok = true;
	for (size_t i = 0; ok && i < n; i++) {
		if (ops[i].kind != TXN_PUT || !ops[i].kept)
			continue;
		char *target = abs_path(t, ops[i].host), *kept = abs_path(t, ops[i].kept);
		ok = file_has_sha(target, ops[i].old_sha) || file_has_sha(kept, ops[i].old_sha);
		free(target);
		free(kept);
	}
	return ok;
}

/* Can it be finished: does every new file hold its new bytes, in place or
 * in its flushed temporary file? */
static bool can_finish(struct txn *t, const struct txn_op *ops, size_t n)
{
	bool ok = true;
	for (size_t i = 0; ok && i < n; i++) {
		if (ops[i].kind != TXN_PUT)
			continue;
		char *target = abs_path(t, ops[i].host), *tmp = temp_of(target);
		ok = file_has_sha(target, ops[i].new_sha) || file_has_sha(tmp, ops[i].new_sha);
		free(target);
		free(tmp);
	}
	return ok;
}

static int finish_install(struct txn *t, const struct txn_op *ops, size_t n, struct wd_err *err)
{
	char **targets = wd_xcalloc(n + 1, sizeof *targets);
	int r = 0;
	for (size_t i = 0; !r && i < n; i++) {
		if (ops[i].kind != TXN_PUT)
			continue;
		targets[i] = abs_path(t, ops[i].host);
		if (!file_has_sha(targets[i], ops[i].new_sha)) {
			char *tmp = temp_of(targets[i]);
			r = rename_step(t, tmp, targets[i], err);
			free(tmp);
		}
	}
	if (!r)
		r = flush_dirs(t, targets, n, err);
	for (size_t i = 0; i < n; i++)
		free(targets[i]);
	free(targets);
	return r;
}

static int recover(struct txn *t, struct wd_err *err)
{
	sqlite3_stmt *st;
	int r = db_prepare(&t->db, "SELECT id, action, package, done_sql FROM txn ORDER BY id "
			   "LIMIT 1", &st, err);
	if (r)
		return r;
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return 0;
	}
	struct txn_plan plan = {0};
	sqlite3_int64 id = sqlite3_column_int64(st, 0);
	plan.install = !strcmp((const char *)sqlite3_column_text(st, 1), "install");
	plan.name = wd_xstrdup((const char *)sqlite3_column_text(st, 2));
	char *done = wd_xstrdup(sqlite3_column_type(st, 3) == SQLITE_NULL ? ""
				: (const char *)sqlite3_column_text(st, 3));
	sqlite3_finalize(st);
	if ((r = load_ops(&t->db, id, &plan.ops, &plan.nops, err)))
		goto out;
	if (plan.install && !can_undo(t, plan.ops, plan.nops) && can_finish(t, plan.ops, plan.nops)) {
		/* A copy to undo from is gone (removed by hand), but every new
		 * file was written and flushed: finishing is the way back to a
		 * consistent volume. */
		plan.version = wd_xstrdup("-");
		if ((r = finish_install(t, plan.ops, plan.nops, err)) ||
		    (r = record_done(t, done, id, err)))
			goto out;
	} else if (plan.install) {
		/* not committed: undo it, and say so in the history */
		plan.version = wd_xstrdup("(undone)");
		if ((r = undo_install(t, plan.ops, plan.nops, err)))
			goto out;
		st = NULL;
		if ((r = db_begin(&t->db, err)))
			goto out;
		if ((r = db_prepare(&t->db, "INSERT INTO history (at, action, package, version) "
				    "VALUES (datetime('now'), 'undo install', ?, '-')", &st, err)))
			goto fail;
		sqlite3_bind_text(st, 1, plan.name, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE) {
			r = db_fail(&t->db, err, "cannot record the history");
			goto fail;
		}
		sqlite3_finalize(st);
		st = NULL;
		char del[64];
		snprintf(del, sizeof del, "DELETE FROM txn WHERE id = %lld", (long long)id);
		if ((r = db_exec(&t->db, del, err)) || (r = db_commit(&t->db, err)))
			goto fail;
	} else {
		/* committed intent: finish it */
		char *v = NULL;
		if ((r = db_prepare(&t->db, "SELECT version FROM package WHERE name = ?", &st, err)))
			goto out;
		sqlite3_bind_text(st, 1, plan.name, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW)
			v = wd_xstrdup((const char *)sqlite3_column_text(st, 0));
		sqlite3_finalize(st);
		st = NULL;
		plan.version = v ? v : wd_xstrdup("-");
		if ((r = remove_files(t, plan.ops, plan.nops, err)) ||
		    (r = record_done(t, done, id, err)))
			goto out;
	}
	t->recovered = true;
	goto out;
fail:
	sqlite3_finalize(st);
	db_rollback(&t->db);
out:
	if (r)
		wd_err_prefix(err, "finishing an interrupted %s of %s", plan.install ? "install"
			      : "removal", plan.name);
	free_ops(plan.ops, plan.nops);
	free(plan.name);
	free(plan.version);
	free(done);
	return r;
}

int txn_pending(struct db *db, bool *pending, struct wd_err *err)
{
	sqlite3_stmt *st;
	int r = db_prepare(db, "SELECT 1 FROM txn LIMIT 1", &st, err);
	if (r)
		return r;
	*pending = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return 0;
}

/* ---- the lock ---- */

static int take_lock(struct txn *t, const char *path, const char *what, struct wd_err *err)
{
	t->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (t->lock_fd < 0)
		return sys_fail(err, path, "open the lock file");
	const char *w = getenv("WARPDRV_LOCK_WAIT");
	int tries = (w ? atoi(w) : 3) * 10;
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
	for (int i = 0;; i++) {
		if (fcntl(t->lock_fd, F_SETLK, &fl) == 0)
			break;
		if (errno != EAGAIN && errno != EACCES)
			return sys_fail(err, path, "lock");
		if (i >= tries) {
			struct flock q = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
			fcntl(t->lock_fd, F_GETLK, &q);
			char holder[200] = "";
			ssize_t n = pread(t->lock_fd, holder, sizeof holder - 1, 0);
			holder[n > 0 ? n : 0] = '\0';
			holder[strcspn(holder, "\n")] = '\0';
			return wd_err_set(err, WD_EFAIL, "the volume is busy: another warpdrv (process "
					  "%ld: %s) holds %s; try again when it has finished",
					  (long)q.l_pid, *holder ? holder : "unknown", path);
		}
		struct timespec ts = {0, 100 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	char line[200];
	int n = snprintf(line, sizeof line, "warpdrv %s\n", what);
	if (ftruncate(t->lock_fd, 0) == 0 && pwrite(t->lock_fd, line, (size_t)n, 0) < 0) {
		/* the note is for people; the lock is what counts */
	}
	return 0;
}

int txn_begin(struct txn *t, const struct volume *v, const char *what, struct wd_err *err)
{
	memset(t, 0, sizeof *t);
	t->v = v;
	t->lock_fd = -1;
	const char *c = getenv("WARPDRV_CRASH_AT");
	t->crash_at = c ? atoi(c) : 0;
	char *dir = NULL, *kept = NULL;
	bool found;
	int r = volume_resolve(v, WD_STATE_DIR, &dir, &found, err);
	if (!r)
		r = wd_mkdirs(dir, err);
	if (!r) {
		char *lock = wd_path_join(dir, "lock");
		r = take_lock(t, lock, what, err);
		free(lock);
	}
	if (!r) {
		kept = wd_path_join(v->root, WD_KEPT_DIR);
		r = wd_mkdirs(kept, err);
	}
	if (!r)
		r = db_open(&t->db, v, true, NULL, err);
	if (!r)
		r = recover(t, err);
	free(dir);
	free(kept);
	if (r)
		txn_end(t);
	return r;
}

void txn_end(struct txn *t)
{
	db_close(&t->db);
	if (t->lock_fd >= 0)
		close(t->lock_fd); /* closing drops the fcntl lock */
	t->lock_fd = -1;
}

/* ---- plans ---- */

void txn_plan_free(struct txn_plan *plan)
{
	free_ops(plan->ops, plan->nops);
	free(plan->pkgs);
	free(plan->done_extra);
	free(plan->name);
	free(plan->version);
	memset(plan, 0, sizeof *plan);
}

void txn_plan_init(struct txn_plan *plan, const char *name, const char *version)
{
	memset(plan, 0, sizeof *plan);
	plan->install = true;
	plan->name = wd_xstrdup(name);
	plan->version = wd_xstrdup(version);
}

void txn_plan_merge(struct txn_plan *into, struct txn_plan *from)
{
	into->ops = wd_xrealloc(into->ops, (into->nops + from->nops + 1) * sizeof *into->ops);
	for (size_t i = 0; i < from->nops; i++) {
		struct txn_op *o = &into->ops[into->nops];
		*o = from->ops[i];
		if (o->kind == TXN_MKDIR) {
			/* the folder may be planned already for another package */
			bool have = false;
			for (size_t k = 0; k < into->nops; k++)
				have |= into->ops[k].kind == TXN_MKDIR &&
					!strcmp(into->ops[k].host, o->host);
			if (have) {
				free(o->host);
				continue;
			}
		}
		if (o->kind == TXN_PUT && !o->config && !o->owner)
			o->owner = from->pkg;
		into->nops++;
	}
	if (from->pkg) {
		into->pkgs = wd_xrealloc(into->pkgs, (into->npkgs + 1) * sizeof *into->pkgs);
		into->pkgs[into->npkgs++] = from->pkg;
	}
	free(from->ops);
	from->ops = NULL;
	from->nops = 0;
	txn_plan_free(from);
}

static struct txn_op *add_op(struct txn_plan *plan, enum txn_op_kind kind)
{
	plan->ops = wd_xrealloc(plan->ops, (plan->nops + 1) * sizeof *plan->ops);
	struct txn_op *o = &plan->ops[plan->nops++];
	memset(o, 0, sizeof *o);
	o->kind = kind;
	return o;
}

static char *rel_of(const struct volume *v, const char *abs)
{
	return wd_xstrdup(abs + strlen(v->root) + 1);
}

/* MKDIR ops, outermost first, for every missing folder above a new file. */
static void plan_folders(const struct volume *v, struct txn_plan *plan, const char *abs)
{
	char *d = wd_dirname(abs);
	size_t rootlen = strlen(v->root);
	char *missing[64];
	int n = 0;
	while (strlen(d) > rootlen && !wd_is_dir(d) && n < 64) {
		missing[n++] = d;
		d = wd_dirname(d);
	}
	free(d);
	while (n-- > 0) {
		char *rel = rel_of(v, missing[n]);
		bool have = false;
		for (size_t i = 0; i < plan->nops; i++)
			have |= plan->ops[i].kind == TXN_MKDIR && !strcmp(plan->ops[i].host, rel);
		if (have)
			free(rel);
		else
			add_op(plan, TXN_MKDIR)->host = rel;
		free(missing[n]);
	}
}

static int owner_of(struct db *db, const char *os2, char **owner, struct wd_err *err)
{
	*owner = NULL;
	if (!db || !db->h)
		return 0;
	sqlite3_stmt *st;
	int r = db_prepare(db, "SELECT package FROM file WHERE path = upper(?)", &st, err);
	if (r)
		return r;
	sqlite3_bind_text(st, 1, os2, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		*owner = wd_xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return 0;
}

int txn_installed_version(struct db *db, const char *name, char **version,
			  struct wd_err *err)
{
	*version = NULL;
	if (!db || !db->h)
		return 0;
	sqlite3_stmt *st;
	int r = db_prepare(db, "SELECT version FROM package WHERE name = ?", &st, err);
	if (r)
		return r;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		*version = wd_xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return 0;
}

static int plan_put(const struct volume *v, struct db *db, const struct package *p, size_t i,
		    struct txn_plan *plan, struct wd_err *err)
{
	const struct pkg_file *f = &p->m.files[i];
	char *abs = NULL, *owner = NULL;
	bool found;
	int r = volume_resolve(v, f->dest, &abs, &found, err);
	if (!r)
		r = owner_of(db, f->dest, &owner, err);
	bool replaced = false;
	for (size_t k = 0; owner && k < p->m.nreplaces; k++)
		replaced |= !strcmp(owner, p->m.replaces[k]);
	if (!r && owner && !replaced)
		r = wd_err_set(err, WD_EFAIL, "%s: %s belongs to the installed package %s; two "
			       "packages cannot own one file (remove %s first)", p->m.name,
			       f->dest, owner, owner);
	if (!r && found && wd_is_dir(abs))
		r = wd_err_set(err, WD_EFAIL, "%s: %s is a folder on the volume", p->m.name, f->dest);
	if (r)
		goto out;
	if (!found)
		plan_folders(v, plan, abs);
	struct txn_op *o = add_op(plan, TXN_PUT);
	o->owner = p;
	o->os2 = wd_xstrdup(f->dest);
	o->host = rel_of(v, abs);
	o->data = p->data[i].p;
	o->len = p->data[i].len;
	memcpy(o->new_sha, f->sha256, WD_SHA256_HEX);
	if (found) {
		/* a file the package did not install: keep it for removal */
		if ((r = wd_sha256_file(abs, o->old_sha, err)))
			goto out;
		char upper[300], hex[WD_SHA256_HEX];
		snprintf(upper, sizeof upper, "%s", f->dest);
		for (char *c = upper; *c; c++)
			*c = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
		wd_sha256_hex(upper, strlen(upper), hex);
		o->kept = wd_xasprintf("%s/%s", WD_KEPT_DIR, hex);
	}
out:
	free(abs);
	free(owner);
	return r;
}

int txn_plan_install(const struct volume *v, struct db *db, const struct package *p,
		     struct txn_plan *plan, bool *nothing, struct wd_err *err)
{
	memset(plan, 0, sizeof *plan);
	*nothing = false;
	char *have = NULL;
	int r = txn_installed_version(db, p->m.name, &have, err);
	if (!r && have && !strcmp(have, p->m.version))
		*nothing = true;
	else if (!r && have)
		r = wd_err_set(err, WD_EFAIL, "%s %s is installed; remove it before installing %s",
			       p->m.name, have, p->m.version);
	free(have);
	if (r || *nothing)
		return r;
	plan->install = true;
	plan->pkg = p;
	plan->name = wd_xstrdup(p->m.name);
	plan->version = wd_xstrdup(p->m.version);
	for (size_t i = 0; !r && i < p->m.nfiles; i++)
		r = plan_put(v, db, p, i, plan, err);
	if (r)
		txn_plan_free(plan);
	return r;
}

int txn_plan_remove(const struct volume *v, struct db *db, const char *name,
		    struct txn_plan *plan, struct wd_err *err)
{
	(void)v;
	memset(plan, 0, sizeof *plan);
	int r = txn_installed_version(db, name, &plan->version, err);
	if (!r && !plan->version)
		r = wd_err_set(err, WD_EFAIL, "%s is not installed ('warpdrv list --installed' "
			       "shows what is)", name);
	sqlite3_stmt *st = NULL;
	if (!r)
		r = db_prepare(db, "SELECT path, host, sha256, kept, kept_sha256 FROM file "
			       "WHERE package = ? ORDER BY path", &st, err);
	if (!r) {
		plan->name = wd_xstrdup(name);
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		while (sqlite3_step(st) == SQLITE_ROW) {
			bool kept = sqlite3_column_type(st, 3) != SQLITE_NULL;
			struct txn_op *o = add_op(plan, kept ? TXN_RESTORE : TXN_DELETE);
			o->os2 = wd_xstrdup((const char *)sqlite3_column_text(st, 0));
			o->host = wd_xstrdup((const char *)sqlite3_column_text(st, 1));
			snprintf(o->new_sha, sizeof o->new_sha, "%s", sqlite3_column_text(st, 2));
			if (kept) {
				o->kept = wd_xstrdup((const char *)sqlite3_column_text(st, 3));
				snprintf(o->old_sha, sizeof o->old_sha, "%s", sqlite3_column_text(st, 4));
			}
		}
		sqlite3_finalize(st);
	}
	if (r)
		txn_plan_free(plan);
	return r;
}

int txn_plan_config(const struct volume *v, struct txn_plan *plan, const char *host,
		    const char *gen_dir, const void *data, size_t len, struct wd_err *err)
{
	char *abs = wd_path_join(v->root, host);
	const char *base = strrchr(host, '/');
	base = base ? base + 1 : host;
	char *kept = wd_xasprintf("%s/%s", gen_dir, base);
	char *kept_abs = wd_path_join(v->root, kept);
	plan_folders(v, plan, kept_abs);
	struct txn_op *o = add_op(plan, TXN_PUT);
	o->config = true;
	o->os2 = wd_xstrdup(host);
	o->host = wd_xstrdup(host);
	o->data = data;
	o->len = len;
	o->kept = kept;
	wd_sha256_hex(data, len, o->new_sha);
	int r = wd_sha256_file(abs, o->old_sha, err);
	free(abs);
	free(kept_abs);
	return r;
}
