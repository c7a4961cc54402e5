/* The volume's lock (fcntl on var/lib/warpdrv/lock: a crashed holder's lock
 * goes with its process), and the beginning and end of a transaction. */
#include "txn/txn_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fs/fs.h"
#include "common/file.h"
#include "common/hooks.h"
#include "common/proc.h"
#include "txn/textlog.h"

/* Who holds the lock, from the process table (the lock file's text is for
 * people and may say anything): "process 123 (warpdrv --root V install
 * e1000)". */
static void holder_of(long pid, char *out, size_t size)
{
	if (pid <= 0) {
		snprintf(out, size, "a process outside this system's view (another machine or "
			 "container sharing the volume)");
		return;
	}
	char *cmd = wd_process_cmdline(pid);
	snprintf(out, size, "process %ld (%s)", pid, cmd ? cmd : "not in the process table");
	free(cmd);
}

/* Waits up to the seconds v says for a lock of this type (F_WRLCK for a
 * writer, F_RDLCK for a reader) on fd; the refusal names the holder. */
static int wait_lock(const struct volume *v, int fd, short type, const char *path,
		     struct wd_err *err)
{
	int lock_wait = v->lock_wait < 0 ? TXN_LOCK_WAIT_DEFAULT : v->lock_wait;
	int tries = lock_wait * 10;
	struct flock fl = {.l_type = type, .l_whence = SEEK_SET};
	for (int i = 0;; i++) {
		if (fcntl(fd, F_SETLK, &fl) == 0)
			return 0;
		if (errno != EAGAIN && errno != EACCES)
			return txn_sys_fail(err, path, "lock");
		if (i >= tries) {
			struct flock q = {.l_type = type, .l_whence = SEEK_SET};
			char holder[300];
			holder_of(fcntl(fd, F_GETLK, &q) == 0 && q.l_type != F_UNLCK ? (long)q.l_pid : 0,
				  holder, sizeof holder);
			return wd_err_set(err, WD_EFAIL, "the volume is busy: %s holds %s; try again "
					  "when it has finished, or wait longer (--lock-wait SECONDS; "
					  "waited %d s)", holder, path, lock_wait);
		}
		struct timespec ts = {0, 100 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
}

static int take_lock(struct txn *t, const char *path, const char *what, struct wd_err *err)
{
	t->lock_fd = fs_open_inplace(TXN_FS(t), path, 0644, NULL, err);
	if (t->lock_fd < 0)
		return t->lock_fd;
	int r = wait_lock(t->v, t->lock_fd, F_WRLCK, path, err);
	if (r)
		return r;
	char line[200];
	int n = snprintf(line, sizeof line, "warpdrv %s\n", what);
	if (ftruncate(t->lock_fd, 0) == 0 && pwrite(t->lock_fd, line, (size_t)n, 0) < 0) {
		/* the note is for people; the lock is what counts */
	}
	return 0;
}

/* db_sqlite_ready for the state database in the state folder dir. */
static int sqlite_ready_in(const char *dir, struct wd_err *err)
{
	char *db_path = wd_path_join(dir, WD_DB_NAME);
	int r = db_sqlite_ready(db_path, err);
	free(db_path);
	return r;
}

int txn_read_lock(const struct volume *v, int *fd, struct wd_err *err)
{
	*fd = -1;
	char *path = NULL;
	bool found = false;
	int r = volume_resolve(v, WD_STATE_DIR "/lock", &path, &found, err);
	if (!r && found) { /* none: no writer ever ran here, and none is created */
		*fd = fs_open(&v->fs, path, O_RDONLY, err);
		r = *fd < 0 ? *fd : wait_lock(v, *fd, F_RDLCK, path, err);
		if (r && *fd >= 0)
			close(*fd);
		if (r)
			*fd = -1;
	}
	free(path);
	return r;
}

int txn_write_lock(const struct volume *v, const char *what, int *fd, struct wd_err *err)
{
	*fd = -1;
	char *dir = NULL;
	bool found = false;
	int r = volume_resolve(v, WD_STATE_DIR, &dir, &found, err);
	if (!r && found) /* the lock is not made where the database cannot open */
		r = sqlite_ready_in(dir, err);
	if (!r && found) { /* none: no transaction ever ran here, and none is created */
		struct txn t = {.v = v, .lock_fd = -1};
		char *lock = wd_path_join(dir, "lock");
		r = take_lock(&t, lock, what, err);
		free(lock);
		if (r && t.lock_fd >= 0)
			close(t.lock_fd);
		else
			*fd = t.lock_fd;
	}
	free(dir);
	return r;
}

void txn_read_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}

int txn_begin_as(struct txn *t, const struct volume *v, const char *what, bool recover,
		 struct wd_err *err)
{
	memset(t, 0, sizeof *t);
	t->v = v;
	t->lock_fd = -1;
	t->what = what;
	t->crash_at = txn_crash_at_env();
	txn_fail_at_env(t);
	char *dir = NULL, *kept = NULL;
	bool found;
	int r = volume_resolve(v, WD_STATE_DIR, &dir, &found, err);
	if (!r) /* nothing is made (the folder, the lock) where the database cannot open */
		r = sqlite_ready_in(dir, err);
	if (!r)
		r = volume_mkdirs(v, dir, err);
	if (!r) {
		char *lock = wd_path_join(dir, "lock");
		r = take_lock(t, lock, what, err);
		free(lock);
	}
	if (!r) {
		r = volume_resolve(v, WD_KEPT_DIR, &kept, &found, err);
		if (!r)
			r = volume_mkdirs(v, kept, err);
	}
	if (!r)
		r = db_open(&t->db, v, true, NULL, err);
	if (!r && recover)
		r = txn_recover(t, err);
	if (!r && recover) /* left by a crash after a removal's commit */
		txn_sweep_aside(t);
	if (!r && recover) /* a line a crash kept out of the text log */
		textlog_catch_up(t);
	free(dir);
	free(kept);
	if (r)
		txn_end(t);
	return r;
}

int txn_begin(struct txn *t, const struct volume *v, const char *what, struct wd_err *err)
{
	return txn_begin_as(t, v, what, true, err);
}

void txn_end(struct txn *t)
{
#if WD_TEST_HOOKS
	/* every batch of folder handles is one phase's (fs/fs.h): one still
	 * open here is a begin without its end */
	if (t->v && fs_batch_open(TXN_FS(t))) {
		fprintf(stderr, "warpdrv: internal error: a batch of folder handles is still "
			"open at the end of a transaction\n");
		abort();
	}
#endif
	db_close(&t->db);
	if (t->lock_fd >= 0)
		close(t->lock_fd); /* closing drops the fcntl lock */
	t->lock_fd = -1;
	free(t->log_desc);
	free(t->log_line);
	t->log_desc = t->log_line = NULL;
}
