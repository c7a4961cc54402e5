/* A SQLite VFS that opens a database and its journal by folder handle.
 *
 * SQLite opens files by name, and its unix VFS turns a name into a full path
 * from "/" (following links on the way), so a folder of the volume swapped
 * for a link between warpdrv's check and SQLite's open would move the state
 * database anywhere. This shim hands SQLite names of the form
 *
 *     /warpdrv-dir<D>-db<F>/<name>
 *
 * where D is a folder already opened beneath the volume's root (fs/) and F
 * the database file already opened and checked in it. The shim's xOpen
 * opens every other file of the database (the journal) itself with
 * openat(D, name, O_NOFOLLOW) and refuses anything but a plain file with one
 * link; then the default VFS opens "/proc/self/fd/D/name": the folder is the
 * handle (the kernel follows that one magic link to the folder itself), the
 * name is looked up in it with O_NOFOLLOW as SQLite always does, and the
 * file it got is checked to be the inode the checks saw. Deletes are
 * unlinkat(D, name). Names of any other form (SQLite's temporary files have
 * none) go to the default VFS as they are.
 *
 * The handle owns its descriptors: xFullPathname, which SQLite calls once
 * when it opens the database, duplicates D and F and names the copies; the
 * database's file keeps them and closes them when SQLite closes it (after
 * SQLite's own descriptor, so that no lock is dropped early), and the
 * journal's name, made from the full name, refers to them. The caller may
 * close its D and F as soon as sqlite3_open_v2 returns. */
#include "state/db_vfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PREFIX "/warpdrv-dir"

struct cfile {
	sqlite3_file base;     /* pMethods: ours */
	int fd;                /* our descriptor of the file (-1: none) */
	int dirfd;             /* main database: its folder's descriptor, ours (-1: none) */
	char proc[300];        /* "/proc/self/fd/D/name": the name the default VFS has */
	sqlite3_file inner[];  /* the default VFS's file */
};

static sqlite3_vfs *inner_vfs;
static sqlite3_vfs confined;
static sqlite3_io_methods methods;

/* Parses one of our names: 1 with *dir, *db and *leaf set, 0 if the name is
 * not ours, -1 if it is ours but malformed. */
static int parse(const char *name, int *dir, int *db, const char **leaf)
{
	if (!name || strncmp(name, PREFIX, strlen(PREFIX)))
		return 0;
	int n = 0;
	if (sscanf(name + strlen(PREFIX), "%d-db%d/%n", dir, db, &n) != 2 || !n)
		return -1;
	*leaf = name + strlen(PREFIX) + n;
	if (!**leaf || strchr(*leaf, '/') || !strcmp(*leaf, ".") || !strcmp(*leaf, ".."))
		return -1;
	return 1;
}

/* A plain file with one link (a hard link could be a file anywhere). */
static int single(int fd)
{
	struct stat st;
	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1;
}

/* ---- the file: every method passes to the default VFS's file ---- */

#define INNER(f) (((struct cfile *)(f))->inner)
#define CALL(f, m, ...) (INNER(f)->pMethods->m(INNER(f), __VA_ARGS__))

static int c_close(sqlite3_file *f)
{
	struct cfile *c = (struct cfile *)f;
	int rc = c->inner->pMethods ? c->inner->pMethods->xClose(c->inner) : SQLITE_OK;
	if (c->fd >= 0)
		close(c->fd);
	if (c->dirfd >= 0)
		close(c->dirfd);
	c->fd = c->dirfd = -1;
	return rc;
}
static int c_read(sqlite3_file *f, void *p, int n, sqlite3_int64 off)
{
	return CALL(f, xRead, p, n, off);
}
static int c_write(sqlite3_file *f, const void *p, int n, sqlite3_int64 off)
{
	return CALL(f, xWrite, p, n, off);
}
static int c_truncate(sqlite3_file *f, sqlite3_int64 size)
{
	return CALL(f, xTruncate, size);
}
static int c_sync(sqlite3_file *f, int flags)
{
	return CALL(f, xSync, flags);
}
static int c_size(sqlite3_file *f, sqlite3_int64 *size)
{
	return CALL(f, xFileSize, size);
}
static int c_lock(sqlite3_file *f, int l)
{
	return CALL(f, xLock, l);
}
static int c_unlock(sqlite3_file *f, int l)
{
	return CALL(f, xUnlock, l);
}
static int c_reserved(sqlite3_file *f, int *out)
{
	return CALL(f, xCheckReservedLock, out);
}
static int c_fcntl(sqlite3_file *f, int op, void *arg)
{
	return CALL(f, xFileControl, op, arg);
}
static int c_sector(sqlite3_file *f)
{
	return INNER(f)->pMethods->xSectorSize(INNER(f));
}
static int c_devchar(sqlite3_file *f)
{
	return INNER(f)->pMethods->xDeviceCharacteristics(INNER(f));
}
static int c_shm_map(sqlite3_file *f, int pg, int pgsz, int extend, void volatile **pp)
{
	return CALL(f, xShmMap, pg, pgsz, extend, pp);
}
static int c_shm_lock(sqlite3_file *f, int off, int n, int flags)
{
	return CALL(f, xShmLock, off, n, flags);
}
static void c_shm_barrier(sqlite3_file *f)
{
	INNER(f)->pMethods->xShmBarrier(INNER(f));
}
static int c_shm_unmap(sqlite3_file *f, int del)
{
	return CALL(f, xShmUnmap, del);
}
static int c_fetch(sqlite3_file *f, sqlite3_int64 off, int n, void **pp)
{
	return CALL(f, xFetch, off, n, pp);
}
static int c_unfetch(sqlite3_file *f, sqlite3_int64 off, void *p)
{
	return CALL(f, xUnfetch, off, p);
}

/* ---- the VFS ---- */

static int v_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out)
{
	(void)vfs;
	struct cfile *c = (struct cfile *)f;
	memset(c, 0, sizeof *c);
	c->fd = c->dirfd = -1;
	int dir, db;
	const char *leaf;
	int ours = parse(name, &dir, &db, &leaf);
	if (ours < 0)
		return SQLITE_CANTOPEN;
	const char *inner_name = name;
	if (ours) {
		bool main_db = (flags & SQLITE_OPEN_MAIN_DB) != 0;
		bool rw = (flags & SQLITE_OPEN_READWRITE) != 0;
		int fd = -1;
		if (main_db) {
			/* the copies xFullPathname made: this file owns them now */
			fd = db;
			c->dirfd = dir;
		} else {
			int acc = rw ? O_RDWR : O_RDONLY;
			if (flags & SQLITE_OPEN_CREATE)
				fd = openat(dir, leaf, acc | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
					    0600);
			if (fd < 0 && (!(flags & SQLITE_OPEN_CREATE) || errno == EEXIST))
				fd = openat(dir, leaf, acc | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		}
		c->fd = fd;
		if (fd < 0 || !single(fd) ||
		    (size_t)snprintf(c->proc, sizeof c->proc, "/proc/self/fd/%d/%s", dir, leaf) >=
			    sizeof c->proc) {
			c_close(f);
			return SQLITE_CANTOPEN;
		}
		inner_name = c->proc;
		flags &= ~(SQLITE_OPEN_EXCLUSIVE | SQLITE_OPEN_DELETEONCLOSE);
	}
	int rc = inner_vfs->xOpen(inner_vfs, inner_name, c->inner, flags, out);
	/* what the default VFS opened by name is the file checked above, not
	 * one put in its place meanwhile */
	struct stat a, b;
	if (rc == SQLITE_OK && ours &&
	    (fstat(c->fd, &a) < 0 || fstatat(dir, leaf, &b, AT_SYMLINK_NOFOLLOW) < 0 ||
	     a.st_dev != b.st_dev || a.st_ino != b.st_ino))
		rc = SQLITE_CANTOPEN;
	if (rc != SQLITE_OK) {
		c_close(f);
		return rc;
	}
	c->base.pMethods = &methods;
	return SQLITE_OK;
}

static int v_delete(sqlite3_vfs *vfs, const char *name, int syncdir)
{
	(void)vfs;
	int dir, db;
	const char *leaf;
	int ours = parse(name, &dir, &db, &leaf);
	if (ours < 0)
		return SQLITE_IOERR_DELETE;
	if (!ours)
		return inner_vfs->xDelete(inner_vfs, name, syncdir);
	if (unlinkat(dir, leaf, 0) < 0)
		return errno == ENOENT ? SQLITE_IOERR_DELETE_NOENT : SQLITE_IOERR_DELETE;
	if (syncdir && fsync(dir) < 0 && errno != EINVAL && errno != ENOTSUP)
		return SQLITE_IOERR_DIR_FSYNC;
	return SQLITE_OK;
}

static int v_access(sqlite3_vfs *vfs, const char *name, int flags, int *out)
{
	(void)vfs;
	int dir, db;
	const char *leaf;
	int ours = parse(name, &dir, &db, &leaf);
	if (ours < 0) {
		*out = 0;
		return SQLITE_OK;
	}
	if (!ours)
		return inner_vfs->xAccess(inner_vfs, name, flags, out);
	struct stat st;
	bool there = fstatat(dir, leaf, &st, AT_SYMLINK_NOFOLLOW) == 0;
	/* as the default VFS: an empty file does not "exist" (a journal) */
	*out = there && (flags != SQLITE_ACCESS_EXISTS || !S_ISREG(st.st_mode) || st.st_size > 0);
	return SQLITE_OK;
}

static int v_fullpath(sqlite3_vfs *vfs, const char *name, int n, char *out)
{
	(void)vfs;
	int dir, db;
	const char *leaf;
	int ours = parse(name, &dir, &db, &leaf);
	if (ours < 0)
		return SQLITE_CANTOPEN;
	if (!ours)
		return inner_vfs->xFullPathname(inner_vfs, name, n, out);
	int d2 = fcntl(dir, F_DUPFD_CLOEXEC, 0), f2 = fcntl(db, F_DUPFD_CLOEXEC, 0);
	if (d2 < 0 || f2 < 0 || snprintf(out, (size_t)n, PREFIX "%d-db%d/%s", d2, f2, leaf) >= n) {
		if (d2 >= 0)
			close(d2);
		if (f2 >= 0)
			close(f2);
		return SQLITE_CANTOPEN;
	}
	return SQLITE_OK;
}

static void *v_dlopen(sqlite3_vfs *vfs, const char *name)
{
	(void)vfs;
	return inner_vfs->xDlOpen(inner_vfs, name);
}
static void v_dlerror(sqlite3_vfs *vfs, int n, char *msg)
{
	(void)vfs;
	inner_vfs->xDlError(inner_vfs, n, msg);
}
static void (*v_dlsym(sqlite3_vfs *vfs, void *h, const char *sym))(void)
{
	(void)vfs;
	return inner_vfs->xDlSym(inner_vfs, h, sym);
}
static void v_dlclose(sqlite3_vfs *vfs, void *h)
{
	(void)vfs;
	inner_vfs->xDlClose(inner_vfs, h);
}
static int v_random(sqlite3_vfs *vfs, int n, char *out)
{
	(void)vfs;
	return inner_vfs->xRandomness(inner_vfs, n, out);
}
static int v_sleep(sqlite3_vfs *vfs, int us)
{
	(void)vfs;
	return inner_vfs->xSleep(inner_vfs, us);
}
static int v_time(sqlite3_vfs *vfs, double *t)
{
	(void)vfs;
	return inner_vfs->xCurrentTime(inner_vfs, t);
}
static int v_lasterr(sqlite3_vfs *vfs, int n, char *msg)
{
	(void)vfs;
	return inner_vfs->xGetLastError ? inner_vfs->xGetLastError(inner_vfs, n, msg) : 0;
}
static int v_time64(sqlite3_vfs *vfs, sqlite3_int64 *t)
{
	(void)vfs;
	return inner_vfs->xCurrentTimeInt64(inner_vfs, t);
}

const char *db_vfs_name(void)
{
	if (confined.zName)
		return confined.zName;
	inner_vfs = sqlite3_vfs_find(NULL);
	if (!inner_vfs || inner_vfs->iVersion < 2)
		return NULL;
	const sqlite3_io_methods m = {
		.iVersion = 3, .xClose = c_close, .xRead = c_read, .xWrite = c_write,
		.xTruncate = c_truncate, .xSync = c_sync, .xFileSize = c_size, .xLock = c_lock,
		.xUnlock = c_unlock, .xCheckReservedLock = c_reserved, .xFileControl = c_fcntl,
		.xSectorSize = c_sector, .xDeviceCharacteristics = c_devchar,
		.xShmMap = c_shm_map, .xShmLock = c_shm_lock, .xShmBarrier = c_shm_barrier,
		.xShmUnmap = c_shm_unmap, .xFetch = c_fetch, .xUnfetch = c_unfetch};
	methods = m;
	const sqlite3_vfs v = {
		.iVersion = 2, .szOsFile = (int)sizeof(struct cfile) + inner_vfs->szOsFile,
		.mxPathname = inner_vfs->mxPathname, .zName = "warpdrv-confined",
		.xOpen = v_open, .xDelete = v_delete, .xAccess = v_access,
		.xFullPathname = v_fullpath, .xDlOpen = v_dlopen, .xDlError = v_dlerror,
		.xDlSym = v_dlsym, .xDlClose = v_dlclose, .xRandomness = v_random,
		.xSleep = v_sleep, .xCurrentTime = v_time, .xGetLastError = v_lasterr,
		.xCurrentTimeInt64 = v_time64};
	confined = v;
	if (sqlite3_vfs_register(&confined, 0) != SQLITE_OK) {
		confined.zName = NULL;
		return NULL;
	}
	return confined.zName;
}

char *db_vfs_filename(int dirfd, int dbfd, const char *name)
{
	return wd_xasprintf(PREFIX "%d-db%d/%s", dirfd, dbfd, name);
}
