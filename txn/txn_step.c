/* The durable steps of a transaction: each write, flush, rename, unlink,
 * mkdir and database commit is counted, and the crash test can stop the
 * process just before any of them (WARPDRV_CRASH_AT=N) or make that one step
 * fail as a full or failing disk would (WARPDRV_FAIL_AT=N, N:ENOSPC or N:EIO).
 * A signal deferred while txn_apply runs (common/signals.h) fails the next
 * step the same way, once, up to the commit; WARPDRV_SIGNAL_AT=N:TERM (INT,
 * HUP, QUIT) sends one just before step N. */
#define _GNU_SOURCE /* sync_file_range, where there is one */
#include "txn/txn_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/file.h"
#include "fs/fs.h"
#include "common/hash.h"
#include "common/hooks.h"
#include "common/signals.h"

int txn_crash_at_env(void)
{
	const char *c = wd_test_hook("WARPDRV_CRASH_AT");
	return c ? atoi(c) : 0;
}

void txn_fail_at_env(struct txn *t)
{
	const char *c = wd_test_hook("WARPDRV_FAIL_AT");
	t->fail_at = c ? atoi(c) : 0;
	const char *how = c ? strchr(c, ':') : NULL;
	t->fail_errno = how && !strcmp(how + 1, "EIO") ? EIO : ENOSPC;
}

/* WARPDRV_PAUSE_AT=N with WARPDRV_PAUSE_FILE=PATH (test builds): before
 * durable step N the process pauses (wd_test_pause): the test changes the
 * volume meanwhile (a folder swapped for a link), deterministically. */
static void pause_hook(int step)
{
	const char *at = wd_test_hook("WARPDRV_PAUSE_AT");
	if (at && atoi(at) == step)
		wd_test_pause("WARPDRV_PAUSE_FILE");
}

/* WARPDRV_SIGNAL_AT=N:TERM (or INT, HUP, QUIT; SIGTERM alone): the process
 * sends itself that signal just before its Nth durable step. */
static void signal_hook(int step)
{
	const char *c = wd_test_hook("WARPDRV_SIGNAL_AT");
	if (!c || atoi(c) != step)
		return;
	const char *how = strchr(c, ':');
	how = !how ? "TERM" : strncmp(how + 1, "SIG", 3) ? how + 1 : how + 4;
	int sig = !strcmp(how, "INT") ? SIGINT : !strcmp(how, "HUP") ? SIGHUP
		: !strcmp(how, "QUIT") ? SIGQUIT : SIGTERM;
	kill(getpid(), sig);
}

/* Counts a step. An injected failure, or a deferred signal while the
 * transaction is armed for it, returns -1 with errno set, the step not
 * taken: the caller's failure path then undoes the change. */
int txn_step(struct txn *t)
{
	pause_hook(t->steps + 1);
	if (++t->steps == t->crash_at)
		_exit(TXN_CRASH_EXIT);
	signal_hook(t->steps);
	if (t->signal_arms && wd_defer_pending()) {
		/* once: the undo that follows runs its steps to the end */
		t->signal_arms = false;
		t->signal_failed = true;
		errno = EINTR;
		return -1;
	}
	if (t->steps == t->fail_at) {
		errno = t->fail_errno;
		return -1;
	}
	/* Each step changes the volume: the folder listings kept for resolving
	 * paths, and the last whole flush, no longer describe it. */
	volume_forget_folders(t->v);
	t->fs_unsynced = true;
	return 0;
}

char *txn_abs(const struct txn *t, const char *rel)
{
	return wd_path_join(t->v->root, rel);
}

char *txn_temp_of(const char *host)
{
	return wd_xasprintf("%s.wd-new", host);
}

int txn_sys_fail(struct wd_err *err, const char *path, const char *what)
{
	return wd_err_set(err, WD_EFAIL, "%s: cannot %s: %s", path, what, strerror(errno));
}

bool txn_file_has_sha(const struct txn *t, const char *path, const char *sha)
{
	return fs_has_sha256(TXN_FS(t), path, sha);
}

/* Writes a file; its flush comes later, in txn_flush_file, after all files of
 * the batch are written. */
int txn_write_file(struct txn *t, const char *path, const void *data, size_t len,
		   const char *like, struct wd_err *err)
{
	if (txn_step(t) < 0)
		return txn_sys_fail(err, path, "write");
	int r, fd = fs_create(TXN_FS(t), path, 0644, true, err);
	if (fd < 0)
		return fd;
	if (like && (r = fs_copy_mode_owner(TXN_FS(t), like, fd, path, err))) {
		close(fd);
		return r;
	}
	const char *p = data;
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			r = txn_sys_fail(err, path, "write");
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
		t->fs_dev = TXN_FS(t)->dev;
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
	if (txn_step(t) < 0)
		return txn_sys_fail(err, t->v->root, "flush");
	int r = fs_sync_all(TXN_FS(t), err);
	if (!r)
		t->fs_unsynced = false;
	return r;
}

int txn_flush_file(struct txn *t, const char *path, struct wd_err *err)
{
	/* on the volume's own file system (asked of the folder a batch keeps,
	 * without a look-up): the whole flush covers it */
	int on = WD_HAVE_SYNC_FS ? fs_on_root_dev(TXN_FS(t), path) : 0;
	if (on < 0)
		return txn_sys_fail(err, path, "open");
	if (on)
		return sync_fs_step(t, err);
	if (txn_step(t) < 0)
		return txn_sys_fail(err, path, "flush");
	return fs_fsync_file(TXN_FS(t), path, err);
}

/* A copy streamed in chunks (a 2 GB file is never held in memory), keeping
 * the mode and owner of what it copies. */
int txn_copy_flushed(struct txn *t, const char *from, const char *to, struct wd_err *err)
{
	if (txn_step(t) < 0)
		return txn_sys_fail(err, to, "write");
	int r = fs_copy(TXN_FS(t), from, to, err);
	return r ? r : txn_flush_file(t, to, err);
}

int txn_rename(struct txn *t, const char *from, const char *to, struct wd_err *err)
{
	if (txn_step(t) < 0)
		return txn_sys_fail(err, to, "rename into place");
	return fs_rename(TXN_FS(t), from, to, err);
}

/* A delete, by the folder's handle (fs_unlink): a step like any other. */
int txn_unlink(struct txn *t, const char *path, struct wd_err *err)
{
	if (!fs_exists(TXN_FS(t), path))
		return 0;
	if (txn_step(t) < 0)
		return txn_sys_fail(err, path, "delete");
	return fs_unlink(TXN_FS(t), path, err);
}

/* Flushes each distinct parent folder of the given host paths once (or the
 * whole file system once, if anything changed since its last flush). */
int txn_flush_dirs(struct txn *t, char **paths, size_t n, struct wd_err *err)
{
	int r = 0;
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
		if (fs_lstat(TXN_FS(t), d, &st) < 0 || !S_ISDIR(st.st_mode))
			continue; /* undoing a run that stopped before making it */
		if (on_whole_fs(t, &st)) {
			r = sync_fs_step(t, err);
			continue;
		}
		r = txn_step(t) < 0 ? txn_sys_fail(err, d, "flush") : fs_fsync_dir(TXN_FS(t), d, err);
	}
	for (size_t k = 0; k < nd; k++)
		free(done[k]);
	free(done);
	return r;
}

int txn_commit_step(struct txn *t, struct wd_err *err)
{
	if (txn_step(t) < 0)
		return txn_sys_fail(err, t->db.path, "commit");
	return db_commit(&t->db, err);
}
