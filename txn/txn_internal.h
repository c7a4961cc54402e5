/* What the files of the transaction share (txn/txn.h is the API):
 * txn_step.c   the durable steps, each a place the crash test can stop at
 * txn_files.c  the file phases: put, remove, undo, finish
 * txn_apply.c  the intent and the commit records (through state/txnlog.h)
 * txn_recover.c finishing or undoing an interrupted run
 * txn_lock.c   the volume's lock, begin and end
 * txn_plan.c   plans */
#ifndef WD_TXN_INTERNAL_H
#define WD_TXN_INTERNAL_H

#include "txn/txn.h"

/* ---- txn_step.c ---- */
/* The step the crash test stops before (WARPDRV_CRASH_AT; 0: none). */
int txn_crash_at_env(void);
/* The step made to fail (WARPDRV_FAIL_AT=N[:ENOSPC|:EIO]; 0: none). */
void txn_fail_at_env(struct txn *t);
/* Counts a step (crashing there if asked) after running queued deletes; -1
 * with errno set where a failure is injected: the step is not to be taken. */
int txn_step(struct txn *t);
char *txn_abs(const struct txn *t, const char *rel);
char *txn_temp_of(const char *host);
int txn_sys_fail(struct wd_err *err, const char *path, const char *what);
bool txn_file_has_sha(const struct txn *t, const char *path, const char *sha);
/* The volume's root handle: every file operation of a transaction goes through it. */
#define TXN_FS(t) (&(t)->v->fs)
/* Writes a new file (made afresh: a stale one unlinked first), with the mode
 * and owner of like when like names an existing file. */
int txn_write_file(struct txn *t, const char *path, const void *data, size_t len,
		   const char *like, struct wd_err *err);
int txn_flush_file(struct txn *t, const char *path, struct wd_err *err);
int txn_copy_flushed(struct txn *t, const char *from, const char *to, struct wd_err *err);
int txn_rename(struct txn *t, const char *from, const char *to, struct wd_err *err);
int txn_unlink(struct txn *t, const char *path, struct wd_err *err);
/* Flushes each distinct parent folder of paths[0..n) (NULLs skipped) once. */
int txn_flush_dirs(struct txn *t, char **paths, size_t n, struct wd_err *err);
/* The database commit, a durable step. */
int txn_commit_step(struct txn *t, struct wd_err *err);

/* ---- txn_files.c ---- */
/* Where a RETIRE's file is copied to undo from (relative to the root). */
char *txn_undo_copy(const char *host);
int txn_put_files(struct txn *t, const struct txn_op *ops, size_t n, struct wd_err *err);
/* A removal moves the package's file of op i to WD_KEPT_DIR/TXN_ASIDE_PREFIXi
 * until its commit. */
#define TXN_ASIDE_PREFIX "removing-"
int txn_remove_files(struct txn *t, const struct txn_op *ops, size_t n, struct wd_err *err);
int txn_undo_remove(struct txn *t, const struct txn_op *ops, size_t n, struct wd_err *err);
void txn_remove_cleanup(struct txn *t, const struct txn_op *ops, size_t n);
/* Deletes what removals moved aside where no transaction is pending. */
void txn_sweep_aside(struct txn *t);
int txn_undo_install(struct txn *t, const struct txn_op *ops, size_t n, struct wd_err *err);
int txn_finish_install(struct txn *t, const struct txn_op *ops, size_t n, struct wd_err *err);
bool txn_can_undo(struct txn *t, const struct txn_op *ops, size_t n);
bool txn_can_finish(struct txn *t, const struct txn_op *ops, size_t n);

/* ---- txn_apply.c ---- */
/* Records intent id as done and forgets it, in one commit. */
int txn_record_done(struct txn *t, long long id, struct wd_err *err);

/* ---- txn_lock.c ---- */
/* txn_begin, recovering or not (recover --abandon takes the lock without). */
int txn_begin_as(struct txn *t, const struct volume *v, const char *what, bool recover,
		 struct wd_err *err);

/* ---- txn_recover.c ---- */
int txn_recover(struct txn *t, struct wd_err *err);

/* ---- txn_plan.c ---- */
void txn_free_ops(struct txn_op *ops, size_t n);

#endif
