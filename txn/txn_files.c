/* The file phases of a transaction: putting a plan's files in place,
 * removing a package's, undoing an install that did not commit and
 * finishing one whose new files are all written. Each step goes through
 * txn_step.c, so the crash test can stop at any of them. */
#include "txn/txn_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/file.h"
#include "common/hash.h"
#include "fs/fs.h"

static bool writes(const struct txn_op *o)
{
	return o->kind == TXN_PUT || o->kind == TXN_REPLACE;
}

char *txn_undo_copy(const char *host)
{
	char hex[WD_SHA256_HEX];
	wd_sha256_hex(host, strlen(host), hex);
	return wd_xasprintf("%s/u-%s", WD_KEPT_DIR, hex);
}

/* A RETIRE's copy to undo from, made before anything is renamed. */
static int copy_retired(struct txn *t, const struct txn_op *o, char **copied,
			struct wd_err *err)
{
	char *from = txn_abs(t, o->host), *rel = txn_undo_copy(o->host);
	*copied = txn_abs(t, rel);
	free(rel);
	int r = fs_exists(TXN_FS(t), from) ? txn_copy_flushed(t, from, *copied, err) : 0;
	free(from);
	return r;
}

static int restore_kept(struct txn *t, const struct txn_op *o, const char *target, bool move,
			struct wd_err *err);

/* After the renames: each RETIRE's file deleted, or its original put back. */
static int retire_files(struct txn *t, const struct txn_op *ops, size_t n, struct wd_err *err)
{
	char **targets = wd_xcalloc(n + 1, sizeof *targets);
	int r = 0;
	for (size_t i = 0; !r && i < n; i++)
		if (ops[i].kind == TXN_RETIRE) {
			targets[i] = txn_abs(t, ops[i].host);
			/* copied, not moved: an undo until the commit needs it */
			r = ops[i].kept ? restore_kept(t, &ops[i], targets[i], false, err)
					: txn_unlink(t, targets[i], err);
		}
	if (!r)
		r = txn_flush_dirs(t, targets, n, err);
	for (size_t i = 0; i < n; i++)
		free(targets[i]);
	free(targets);
	return r;
}

/* The kept copies' folder flushed, after kept copies were deleted from it. */
static int flush_kept(struct txn *t, struct wd_err *err)
{
	char *d = txn_abs(t, WD_KEPT_DIR);
	int r = txn_step(t) < 0 ? txn_sys_fail(err, d, "flush") : fs_fsync_dir(TXN_FS(t), d, err);
	free(d);
	return r;
}

/* The upgrade's copies to undo from, then the originals its retired files
 * gave back: once the first is gone, recovery finishes instead of undoing. */
static int drop_undo_copies(struct txn *t, const struct txn_op *ops, size_t n, bool originals,
			    struct wd_err *err)
{
	int r = 0;
	bool any = false;
	for (int pass = 0; pass < (originals ? 2 : 1); pass++)
		for (size_t i = 0; !r && i < n; i++) {
			char *rel = NULL;
			if (pass == 0 && ops[i].kind == TXN_REPLACE && ops[i].kept)
				rel = wd_xstrdup(ops[i].kept);
			else if (pass == 0 && ops[i].kind == TXN_RETIRE)
				rel = txn_undo_copy(ops[i].host);
			else if (pass == 1 && ops[i].kind == TXN_RETIRE && ops[i].kept)
				rel = wd_xstrdup(ops[i].kept);
			if (!rel)
				continue;
			char *k = txn_abs(t, rel);
			r = txn_unlink(t, k, err);
			free(k);
			free(rel);
			any = true;
		}
	return !r && any ? flush_kept(t, err) : r;
}

int txn_put_files(struct txn *t, const struct txn_op *ops, size_t n, struct wd_err *err)
{
	fs_batch_begin(TXN_FS(t));
	char **tmps = wd_xcalloc(2 * n + 1, sizeof *tmps), **targets = tmps + n;
	int r = 0;
	for (size_t i = 0; !r && i < n; i++)
		if (ops[i].kind == TXN_MKDIR) {
			char *d = txn_abs(t, ops[i].host);
			r = txn_step(t) < 0 ? txn_sys_fail(err, d, "create folder")
					    : fs_mkdir_err(TXN_FS(t), d, 0755, err);
			free(d);
		}
	/* copies of the foreign files first, so that anything renamed over
	 * later can always be put back */
	for (size_t i = 0; !r && i < n; i++)
		if (writes(&ops[i]) && ops[i].kept) {
			char *from = txn_abs(t, ops[i].host), *to = txn_abs(t, ops[i].kept);
			r = txn_copy_flushed(t, from, to, err);
			free(from);
			tmps[i] = to;
		} else if (ops[i].kind == TXN_RETIRE) {
			r = copy_retired(t, &ops[i], &tmps[i], err);
		}
	if (!r)
		r = txn_flush_dirs(t, tmps, n, err);
	for (size_t i = 0; i < n; i++) {
		free(tmps[i]);
		tmps[i] = NULL;
	}
	for (size_t i = 0; !r && i < n; i++)
		if (writes(&ops[i])) {
			targets[i] = txn_abs(t, ops[i].host);
			tmps[i] = txn_temp_of(targets[i]);
			/* a rewritten file keeps its mode and owner */
			r = txn_write_file(t, tmps[i], ops[i].data, ops[i].len, targets[i], err);
		}
	for (size_t i = 0; !r && i < n; i++)
		if (tmps[i])
			r = txn_flush_file(t, tmps[i], err);
	if (!r)
		r = txn_flush_dirs(t, tmps, n, err);
	for (size_t i = 0; !r && i < n; i++)
		if (tmps[i])
			r = txn_rename(t, tmps[i], targets[i], err);
	if (!r)
		r = txn_flush_dirs(t, targets, n, err);
	if (!r)
		r = retire_files(t, ops, n, err);
	if (!r)
		r = drop_undo_copies(t, ops, n, true, err);
	for (size_t i = 0; i < 2 * n; i++)
		free(tmps[i]);
	free(tmps);
	fs_batch_end(TXN_FS(t));
	return r;
}

/* Whether two paths lie on one file system (a rename between them works). */
static bool same_fs(const struct txn *t, const char *a, const char *b)
{
	struct stat sa, sb;
	char *db = wd_dirname(b);
	bool same = fs_lstat(TXN_FS(t), a, &sa) == 0 && fs_lstat(TXN_FS(t), db, &sb) == 0 &&
		    sa.st_dev == sb.st_dev;
	free(db);
	return same;
}

/* Puts a kept file back over target unless target already holds it. move:
 * the kept copy is not needed afterwards (an undo drops it), so it is
 * renamed into place, which needs no free space on a full disk. */
static int restore_kept(struct txn *t, const struct txn_op *o, const char *target, bool move,
			struct wd_err *err)
{
	if (txn_file_has_sha(t, target, o->old_sha))
		return 0;
	char *kept = txn_abs(t, o->kept), *tmp = txn_temp_of(target);
	int r = 0;
	if (!txn_file_has_sha(t, kept, o->old_sha))
		r = wd_err_set(err, WD_EFAIL, "%s: the kept copy of %s is missing or damaged; "
			       "the original file cannot be put back", kept, target);
	if (!r && move && same_fs(t, kept, target)) {
		r = txn_rename(t, kept, target, err);
		free(kept);
		free(tmp);
		return r;
	}
	if (!r)
		r = txn_copy_flushed(t, kept, tmp, err);
	if (!r)
		r = txn_rename(t, tmp, target, err);
	free(kept);
	free(tmp);
	return r;
}

static int drop_kept(struct txn *t, const struct txn_op *ops, size_t n, struct wd_err *err)
{
	int r = 0;
	bool any = false;
	for (size_t i = 0; !r && i < n; i++)
		if (ops[i].kept && ops[i].kind != TXN_RETIRE && ops[i].kind != TXN_REPLACE) {
			char *k = txn_abs(t, ops[i].kept);
			r = txn_unlink(t, k, err);
			free(k);
			any = true;
		}
	return !r && any ? flush_kept(t, err) : r;
}

/* Where a removal moves the package's file of op i until its commit: in the
 * kept folder, out of the guest's sight, so that a failure before the commit
 * can put it back. */
static char *aside_of(const struct txn *t, size_t i)
{
	char *rel = wd_xasprintf("%s/%s%zu", WD_KEPT_DIR, TXN_ASIDE_PREFIX, i);
	char *abs = txn_abs(t, rel);
	free(rel);
	return abs;
}

/* Moves the package's file out of the way (a RESTORE whose target holds the
 * original already is done). Where the kept folder is on another file
 * system than the target, the file is deleted instead. */
static int move_aside(struct txn *t, const struct txn_op *o, size_t i, const char *target,
		      struct wd_err *err)
{
	struct stat st;
	if (fs_lstat(TXN_FS(t), target, &st) < 0 ||
	    (o->kind == TXN_RESTORE && txn_file_has_sha(t, target, o->old_sha)))
		return 0;
	char *aside = aside_of(t, i);
	/* the kept folder's file system, asked once a removal */
	if (!t->kept_dev_known) {
		struct stat kst;
		char *kd = wd_dirname(aside);
		t->kept_dev_known = fs_lstat(TXN_FS(t), kd, &kst) == 0;
		t->kept_dev = kst.st_dev;
		free(kd);
	}
	int r = t->kept_dev_known && st.st_dev == t->kept_dev ? txn_rename(t, target, aside, err)
							       : txn_unlink(t, target, err);
	free(aside);
	return r;
}

/* Removal, also the roll-forward of an interrupted one: idempotent. The
 * package's files are moved aside and the kept originals moved back; what
 * was moved aside is deleted after the commit (txn_remove_cleanup). */
int txn_remove_files(struct txn *t, const struct txn_op *ops, size_t n, struct wd_err *err)
{
	fs_batch_begin(TXN_FS(t));
	t->kept_dev_known = false;
	char **targets = wd_xcalloc(n + 2, sizeof *targets);
	int r = 0;
	for (size_t i = 0; !r && i < n; i++) {
		if (ops[i].kind != TXN_RESTORE && ops[i].kind != TXN_DELETE)
			continue;
		targets[i] = txn_abs(t, ops[i].host);
		char *tmp = txn_temp_of(targets[i]);
		r = txn_unlink(t, tmp, err); /* a partial copy from an earlier try */
		free(tmp);
		if (!r)
			r = move_aside(t, &ops[i], i, targets[i], err);
		if (!r && ops[i].kind == TXN_RESTORE)
			r = restore_kept(t, &ops[i], targets[i], true, err);
	}
	targets[n] = aside_of(t, 0); /* the kept folder, whose entries moved */
	if (!r)
		r = txn_flush_dirs(t, targets, n + 1, err);
	for (size_t i = 0; i <= n; i++)
		free(targets[i]);
	free(targets);
	fs_batch_end(TXN_FS(t));
	return r;
}

/* Puts back what txn_remove_files did before a failure, in reverse. */
int txn_undo_remove(struct txn *t, const struct txn_op *ops, size_t n, struct wd_err *err)
{
	fs_batch_begin(TXN_FS(t));
	char **targets = wd_xcalloc(n + 2, sizeof *targets);
	int r = 0;
	for (size_t k = n; !r && k-- > 0;) {
		if (ops[k].kind != TXN_RESTORE && ops[k].kind != TXN_DELETE)
			continue;
		targets[k] = txn_abs(t, ops[k].host);
		char *aside = aside_of(t, k), *kept = ops[k].kept ? txn_abs(t, ops[k].kept) : NULL;
		if (kept && !fs_exists(TXN_FS(t), kept) && txn_file_has_sha(t, targets[k], ops[k].old_sha))
			r = txn_rename(t, targets[k], kept, err);
		if (!r && fs_exists(TXN_FS(t), aside))
			r = txn_rename(t, aside, targets[k], err);
		free(aside);
		free(kept);
	}
	targets[n] = aside_of(t, 0);
	if (!r)
		r = txn_flush_dirs(t, targets, n + 1, err);
	for (size_t i = 0; i <= n; i++)
		free(targets[i]);
	free(targets);
	fs_batch_end(TXN_FS(t));
	return r;
}

/* After a removal's commit: what it moved aside, and kept copies it could
 * only copy back, go. Not steps: nothing refers to them any more, and what a
 * crash leaves is swept by the next transaction (txn_sweep_aside). */
void txn_remove_cleanup(struct txn *t, const struct txn_op *ops, size_t n)
{
	struct wd_err e;
	/* one after the other, in a batch of the root's folder handles; one
	 * that cannot be deleted is left for the next sweep (txn_sweep_aside) */
	fs_batch_begin(TXN_FS(t));
	for (size_t i = 0; i < n; i++) {
		if (ops[i].kind != TXN_RESTORE && ops[i].kind != TXN_DELETE)
			continue;
		char *aside = aside_of(t, i);
		(void)fs_unlink_errno(TXN_FS(t), aside);
		free(aside);
		if (ops[i].kept) {
			char *k = txn_abs(t, ops[i].kept);
			(void)fs_unlink_errno(TXN_FS(t), k);
			free(k);
		}
	}
	fs_batch_end(TXN_FS(t));
	char *d = txn_abs(t, WD_KEPT_DIR);
	fs_fsync_dir(TXN_FS(t), d, &e);
	free(d);
}

/* Whether every kept copy a removal puts back is there, a plain file with
 * the recorded bytes: checked before its intent is committed, so that a
 * removal never starts that cannot finish. */
int txn_check_kept(const struct volume *v, const struct txn_plan *plan, struct wd_err *err)
{
	int r = 0;
	for (size_t i = 0; !r && !plan->install && i < plan->nops; i++) {
		const struct txn_op *o = &plan->ops[i];
		if (o->kind != TXN_RESTORE || !o->kept)
			continue;
		char *kept = wd_path_join(v->root, o->kept), *target = wd_path_join(v->root, o->host);
		struct stat st;
		char hex[WD_SHA256_HEX];
		struct wd_err e;
		bool ok = fs_has_sha256(&v->fs, target, o->old_sha);
		if (!ok && (fs_lstat(&v->fs, kept, &st) < 0 || !S_ISREG(st.st_mode)))
			r = wd_err_set(err, WD_EFAIL, "%s: the kept copy of %s is missing or not a "
				       "plain file, so removing %s cannot put the original back; "
				       "nothing was changed (put the original file there to remove "
				       "it)", kept, o->os2 ? o->os2 : o->host, plan->name);
		else if (!ok && (fs_sha256(&v->fs, kept, hex, &e) || strcmp(hex, o->old_sha)))
			r = wd_err_set(err, WD_EFAIL, "%s: the kept copy of %s is damaged (its SHA-256 "
				       "is not the one recorded), so removing %s cannot put the "
				       "original back; nothing was changed (put the original file "
				       "there to remove it)", kept,
				       o->os2 ? o->os2 : o->host, plan->name);
		free(kept);
		free(target);
	}
	return r;
}

/* Puts a retired file back from its undo copy, unless it is in place. */
static int unretire(struct txn *t, const struct txn_op *o, const char *target,
		    struct wd_err *err)
{
	char *rel = txn_undo_copy(o->host), *copy = txn_abs(t, rel), *tmp = txn_temp_of(target);
	int r = 0;
	if (!txn_file_has_sha(t, target, o->new_sha) && txn_file_has_sha(t, copy, o->new_sha) &&
	    !(r = txn_copy_flushed(t, copy, tmp, err)))
		r = txn_rename(t, tmp, target, err);
	if (!r) /* a partial copy of the original, or of this one */
		r = txn_unlink(t, tmp, err);
	free(rel);
	free(copy);
	free(tmp);
	return r;
}

/* Undoes an install that did not reach its commit. */
int txn_undo_install(struct txn *t, const struct txn_op *ops, size_t n, struct wd_err *err)
{
	char **targets = wd_xcalloc(n + 1, sizeof *targets);
	int r = 0;
	/* the folder handles kept until the folders it made are removed */
	fs_batch_begin(TXN_FS(t));
	for (size_t k = n; !r && k-- > 0;) {
		if (ops[k].kind == TXN_RETIRE) {
			targets[k] = txn_abs(t, ops[k].host);
			r = unretire(t, &ops[k], targets[k], err);
			continue;
		}
		if (!writes(&ops[k]))
			continue;
		targets[k] = txn_abs(t, ops[k].host);
		char *tmp = txn_temp_of(targets[k]);
		/* A new file is deleted only if it holds the bytes this
		 * transaction wrote (renamed into place whole): a file of other
		 * content is not its to delete, whatever the recorded rows say. */
		if (ops[k].kept)
			r = restore_kept(t, &ops[k], targets[k], true, err);
		else if (txn_file_has_sha(t, targets[k], ops[k].new_sha))
			r = txn_unlink(t, targets[k], err);
		if (!r)
			r = txn_unlink(t, tmp, err);
		free(tmp);
	}
	if (!r)
		r = txn_flush_dirs(t, targets, n, err);
	if (!r)
		r = drop_kept(t, ops, n, err);
	if (!r)
		r = drop_undo_copies(t, ops, n, false, err);
	fs_batch_end(TXN_FS(t));
	for (size_t k = n; !r && k-- > 0;)
		if (ops[k].kind == TXN_MKDIR) {
			char *d = txn_abs(t, ops[k].host);
			if (fs_rmdir(TXN_FS(t), d) == 0)
				r = fs_fsync_parent(TXN_FS(t), d, err);
			free(d);
		}
	for (size_t i = 0; i < n; i++)
		free(targets[i]);
	free(targets);
	return r;
}

/* A retired file is in place or in its undo copy, and the original it gave
 * back (if any) is still kept. */
static bool retired_undoable(struct txn *t, const struct txn_op *o)
{
	char *target = txn_abs(t, o->host), *rel = txn_undo_copy(o->host), *copy = txn_abs(t, rel);
	bool ok = txn_file_has_sha(t, target, o->new_sha) || txn_file_has_sha(t, copy, o->new_sha);
	free(target);
	free(rel);
	free(copy);
	if (ok && o->kept) {
		char *kept = txn_abs(t, o->kept);
		ok = txn_file_has_sha(t, kept, o->old_sha);
		free(kept);
	}
	return ok;
}

/* Can an interrupted install be undone: is every file it replaced either
 * still as it was or kept in a copy? */
bool txn_can_undo(struct txn *t, const struct txn_op *ops, size_t n)
{
	bool ok = true;
	for (size_t i = 0; ok && i < n; i++) {
		if (ops[i].kind == TXN_RETIRE) {
			ok = retired_undoable(t, &ops[i]);
			continue;
		}
		if (!writes(&ops[i]) || !ops[i].kept)
			continue;
		char *target = txn_abs(t, ops[i].host), *kept = txn_abs(t, ops[i].kept);
		ok = txn_file_has_sha(t, target, ops[i].old_sha) || txn_file_has_sha(t, kept, ops[i].old_sha);
		free(target);
		free(kept);
	}
	return ok;
}

/* Can it be finished: does every new file hold its new bytes, in place or
 * in its flushed temporary file? */
bool txn_can_finish(struct txn *t, const struct txn_op *ops, size_t n)
{
	bool ok = true;
	for (size_t i = 0; ok && i < n; i++) {
		if (!writes(&ops[i]))
			continue;
		char *target = txn_abs(t, ops[i].host), *tmp = txn_temp_of(target);
		ok = txn_file_has_sha(t, target, ops[i].new_sha) || txn_file_has_sha(t, tmp, ops[i].new_sha);
		free(target);
		free(tmp);
	}
	return ok;
}

int txn_finish_install(struct txn *t, const struct txn_op *ops, size_t n, struct wd_err *err)
{
	fs_batch_begin(TXN_FS(t));
	char **targets = wd_xcalloc(n + 1, sizeof *targets);
	int r = 0;
	for (size_t i = 0; !r && i < n; i++) {
		if (!writes(&ops[i]))
			continue;
		targets[i] = txn_abs(t, ops[i].host);
		if (!txn_file_has_sha(t, targets[i], ops[i].new_sha)) {
			char *tmp = txn_temp_of(targets[i]);
			r = txn_rename(t, tmp, targets[i], err);
			free(tmp);
		}
	}
	if (!r)
		r = txn_flush_dirs(t, targets, n, err);
	if (!r)
		r = retire_files(t, ops, n, err);
	if (!r)
		r = drop_undo_copies(t, ops, n, true, err);
	for (size_t i = 0; i < n; i++)
		free(targets[i]);
	free(targets);
	fs_batch_end(TXN_FS(t));
	return r;
}
