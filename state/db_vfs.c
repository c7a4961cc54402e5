/* A SQLite VFS for one database on the volume, that reads and writes only
 * descriptors the confined layer opened.
 *
 * SQLite's own file layer opens files by name: the database, its journal,
 * a write-ahead log and its shared memory (-wal, -shm), and whatever file a
 * hot journal names as its super-journal, which it then deletes. On a
 * volume every one of those names is the volume's to plant. So each
 * database gets a VFS of its own (docs/threat-model.md, "SQLite"):
 *
 * - It knows two names, the database's leaf and that leaf with "-journal",
 *   in one folder handle opened beneath the root. xOpen, xDelete, xAccess
 *   and xFullPathname refuse every other name (an absolute path, a
 *   super-journal, "-wal"), and say so in the refusal the caller reports.
 * - The database is the descriptor the caller opened and checked. The
 *   journal is opened here through fs/ (fs_leaf_open: never followed, a
 *   new one made O_EXCL, an old one refused unless a plain file with one
 *   link), and every read and write goes to that descriptor: nothing is
 *   opened a second time by name.
 * - A journal that names a super-journal is refused before SQLite reads
 *   it: warpdrv never writes one, and SQLite would delete the file it names.
 * - The file methods are version 1: no shared memory (so no WAL) and no
 *   memory map. Locks are SQLite's own protocol on the same bytes, taken as
 *   open file description locks, so a second connection in one process
 *   and SQLite's own tools in another both see them.
 * - Temporary files are not served: the connection keeps them in memory
 *   (state/db.c sets temp_store). */
#define _GNU_SOURCE /* F_OFD_SETLK */
#include "state/db_vfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/file.h"
#include "common/hooks.h"
#include "fs/fs.h"

struct db_vfs {
	sqlite3_vfs vfs;       /* pAppData: this */
	sqlite3_vfs *inner;    /* the default VFS: randomness, sleep, the clock */
	int dirfd, dbfd;
	bool readonly;
	char *leaf, *journal, *path;
	char name[48];
	char refused[600];
	int step_budget; /* the connection's (state/db.c: db_harden) */
};

struct cfile {
	sqlite3_file base; /* pMethods: methods */
	struct db_vfs *v;
	int fd;
	bool main;     /* the database (its descriptor is the VFS's) */
	bool dirsync;  /* a journal just made: its folder flushed at its first sync */
	int lock;      /* SQLITE_LOCK_* held */
};

static const sqlite3_io_methods methods;

static void refuse(struct db_vfs *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void refuse(struct db_vfs *v, const char *fmt, ...)
{
	if (v->refused[0])
		return; /* the first one is the cause */
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(v->refused, sizeof v->refused, fmt, ap);
	va_end(ap);
}

/* A name SQLite asked for that is neither the database nor its journal. */
static void refuse_name(struct db_vfs *v, const char *what, const char *name)
{
	size_t n = strlen(v->leaf);
	if (name && !strncmp(name, v->leaf, n) && (!strcmp(name + n, "-wal") || !strcmp(name + n, "-shm")))
		refuse(v, "%s%s: a write-ahead log beside the database, which warpdrv never "
		       "writes (it keeps a rollback journal); nothing was read from it: move it "
		       "aside", v->path, name + n);
	else
		refuse(v, "%s: SQLite was asked to %s '%.200s', a file outside the state folder "
		       "that warpdrv never writes (a planted journal names it); nothing was done "
		       "with it: move %s-journal aside", v->path, what, name ? name : "(temporary)",
		       v->path);
}

/* ---- the file ---- */

static int c_close(sqlite3_file *f)
{
	struct cfile *c = (struct cfile *)f;
	if (c->main) {
		struct flock fl = {.l_type = F_UNLCK, .l_whence = SEEK_SET};
		fcntl(c->fd, F_OFD_SETLK, &fl);
	} else if (c->fd >= 0) {
		close(c->fd);
	}
	c->fd = -1;
	return SQLITE_OK;
}

static int c_read(sqlite3_file *f, void *p, int n, sqlite3_int64 off)
{
	struct cfile *c = (struct cfile *)f;
	size_t got = 0;
	while (got < (size_t)n) {
		ssize_t k = pread(c->fd, (char *)p + got, (size_t)n - got, (off_t)(off + (sqlite3_int64)got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return SQLITE_IOERR_READ;
		if (k == 0)
			break;
		got += (size_t)k;
	}
	if (got < (size_t)n) {
		memset((char *)p + got, 0, (size_t)n - got);
		return SQLITE_IOERR_SHORT_READ;
	}
	return SQLITE_OK;
}

static int c_write(sqlite3_file *f, const void *p, int n, sqlite3_int64 off)
{
	struct cfile *c = (struct cfile *)f;
	size_t put = 0;
	while (put < (size_t)n) {
		ssize_t k = pwrite(c->fd, (const char *)p + put, (size_t)n - put,
				   (off_t)(off + (sqlite3_int64)put));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return errno == ENOSPC ? SQLITE_FULL : SQLITE_IOERR_WRITE;
		put += (size_t)k;
	}
	return SQLITE_OK;
}

static int c_truncate(sqlite3_file *f, sqlite3_int64 size)
{
	return ftruncate(((struct cfile *)f)->fd, (off_t)size) < 0 ? SQLITE_IOERR_TRUNCATE
								     : SQLITE_OK;
}

static int c_sync(sqlite3_file *f, int flags)
{
	struct cfile *c = (struct cfile *)f;
	int r = (flags & SQLITE_SYNC_DATAONLY) ? fdatasync(c->fd) : fsync(c->fd);
	if (r < 0)
		return SQLITE_IOERR_FSYNC;
	if (c->dirsync) { /* the journal's name is durable before the database changes */
		if (fsync(c->v->dirfd) < 0 && errno != EINVAL && errno != ENOTSUP)
			return SQLITE_IOERR_DIR_FSYNC;
		c->dirsync = false;
	}
	return SQLITE_OK;
}

static int c_size(sqlite3_file *f, sqlite3_int64 *size)
{
	struct stat st;
	if (fstat(((struct cfile *)f)->fd, &st) < 0)
		return SQLITE_IOERR_FSTAT;
	*size = st.st_size;
	return SQLITE_OK;
}

/* SQLite's lock bytes (os.h), as its unix layer takes them. */
#define PENDING_BYTE 0x40000000
#define RESERVED_BYTE (PENDING_BYTE + 1)
#define SHARED_FIRST (PENDING_BYTE + 2)
#define SHARED_SIZE 510

static int setlk(int fd, short type, off_t start, off_t len)
{
	struct flock fl = {.l_type = type, .l_whence = SEEK_SET, .l_start = start, .l_len = len};
	return fcntl(fd, F_OFD_SETLK, &fl);
}

static int busy(void)
{
	return errno == EAGAIN || errno == EACCES ? SQLITE_BUSY : SQLITE_IOERR_LOCK;
}

static int c_lock(sqlite3_file *f, int level)
{
	struct cfile *c = (struct cfile *)f;
	if (c->lock >= level)
		return SQLITE_OK;
	if (level == SQLITE_LOCK_SHARED) {
		/* no new reader while a writer waits on the pending byte */
		if (setlk(c->fd, F_RDLCK, PENDING_BYTE, 1) < 0)
			return busy();
		int r = setlk(c->fd, F_RDLCK, SHARED_FIRST, SHARED_SIZE) < 0 ? busy() : SQLITE_OK;
		setlk(c->fd, F_UNLCK, PENDING_BYTE, 1);
		if (r == SQLITE_OK)
			c->lock = SQLITE_LOCK_SHARED;
		return r;
	}
	if (c->v->readonly)
		return SQLITE_READONLY;
	if (level == SQLITE_LOCK_RESERVED) {
		if (setlk(c->fd, F_WRLCK, RESERVED_BYTE, 1) < 0)
			return busy();
		c->lock = SQLITE_LOCK_RESERVED;
		return SQLITE_OK;
	}
	/* EXCLUSIVE: pending first, then every reader gone */
	if (c->lock < SQLITE_LOCK_PENDING) {
		if (setlk(c->fd, F_WRLCK, PENDING_BYTE, 1) < 0)
			return busy();
		c->lock = SQLITE_LOCK_PENDING;
	}
	if (setlk(c->fd, F_WRLCK, SHARED_FIRST, SHARED_SIZE) < 0)
		return busy();
	c->lock = SQLITE_LOCK_EXCLUSIVE;
	return SQLITE_OK;
}

static int c_unlock(sqlite3_file *f, int level)
{
	struct cfile *c = (struct cfile *)f;
	if (c->lock <= level)
		return SQLITE_OK;
	if (level == SQLITE_LOCK_SHARED) {
		if (c->lock >= SQLITE_LOCK_EXCLUSIVE &&
		    setlk(c->fd, F_RDLCK, SHARED_FIRST, SHARED_SIZE) < 0)
			return SQLITE_IOERR_RDLOCK;
		setlk(c->fd, F_UNLCK, PENDING_BYTE, 2); /* pending and reserved */
	} else {
		setlk(c->fd, F_UNLCK, PENDING_BYTE, 2 + SHARED_SIZE);
	}
	c->lock = level;
	return SQLITE_OK;
}

static int c_reserved(sqlite3_file *f, int *out)
{
	struct cfile *c = (struct cfile *)f;
	if (c->lock >= SQLITE_LOCK_RESERVED) {
		*out = 1;
		return SQLITE_OK;
	}
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = RESERVED_BYTE,
			   .l_len = 1};
	if (fcntl(c->fd, F_OFD_GETLK, &fl) < 0)
		return SQLITE_IOERR_CHECKRESERVEDLOCK;
	*out = fl.l_type != F_UNLCK;
	return SQLITE_OK;
}

static int c_fcntl(sqlite3_file *f, int op, void *arg)
{
	(void)f, (void)op, (void)arg;
	return SQLITE_NOTFOUND;
}

static int c_sector(sqlite3_file *f)
{
	(void)f;
	return 4096; /* SQLite's unix layer's default */
}

static int c_devchar(sqlite3_file *f)
{
	(void)f;
	return SQLITE_IOCAP_POWERSAFE_OVERWRITE;
}

static const sqlite3_io_methods methods = {
	.iVersion = 1, .xClose = c_close, .xRead = c_read, .xWrite = c_write,
	.xTruncate = c_truncate, .xSync = c_sync, .xFileSize = c_size, .xLock = c_lock,
	.xUnlock = c_unlock, .xCheckReservedLock = c_reserved, .xFileControl = c_fcntl,
	.xSectorSize = c_sector, .xDeviceCharacteristics = c_devchar};

/* ---- the VFS ---- */

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Whether the journal on fd ends with a super-journal record that SQLite
 * would act on (pager.c, readSuperJournal): 1 with its name in out, 0. */
static int super_journal(int fd, char *out, size_t cap)
{
	static const unsigned char magic[8] = {0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7};
	struct stat st;
	unsigned char tail[16];
	if (fstat(fd, &st) < 0 || st.st_size < 16 ||
	    pread(fd, tail, sizeof tail, st.st_size - 16) != (ssize_t)sizeof tail ||
	    memcmp(tail + 8, magic, 8))
		return 0;
	uint32_t len = be32(tail), sum = be32(tail + 4);
	if (!len || len > (uint64_t)st.st_size - 16 || len > 65536)
		return 0;
	unsigned char *name = malloc(len);
	if (!name || pread(fd, name, len, st.st_size - 16 - len) != (ssize_t)len) {
		free(name);
		return 0;
	}
	for (uint32_t i = 0; i < len; i++) /* as SQLite sums them: as char, signed here */
		sum -= (uint32_t)(int)(signed char)name[i];
	if (!sum)
		snprintf(out, cap, "%.*s", (int)strnlen((char *)name, len), (char *)name);
	free(name);
	return !sum;
}

static int open_journal(struct db_vfs *v, struct cfile *c, int flags)
{
	bool rw = (flags & SQLITE_OPEN_READWRITE) && !v->readonly;
	struct stat st;
	int fd = -1;
	if (rw && (flags & SQLITE_OPEN_CREATE)) {
		fd = fs_leaf_open(v->dirfd, v->journal, true, true, 0644, &st);
		c->dirsync = fd >= 0;
	}
	if (fd < 0 && (!rw || !(flags & SQLITE_OPEN_CREATE) || errno == EEXIST))
		fd = fs_leaf_open(v->dirfd, v->journal, rw, false, 0, &st);
	if (fd < 0) {
		int e = errno;
		if (e == ENOENT)
			return SQLITE_CANTOPEN;
		refuse(v, "%s-journal: %s; warpdrv plays back only a journal that is a plain file "
		       "with one link, read from the file it checked: nothing was read from it; "
		       "move it aside", v->path,
		       e == EMLINK ? "has other hard links (it may be a file elsewhere)"
		       : e == ELOOP || S_ISLNK(st.st_mode) ? "is a symbolic link"
		       : e == EINVAL && st.st_mode ? wd_file_kind(st.st_mode) : strerror(e));
		return SQLITE_CANTOPEN;
	}
	char super[256];
	if (super_journal(fd, super, sizeof super)) {
		close(fd);
		refuse(v, "%s-journal: names a super-journal, '%s', which warpdrv never writes and "
		       "SQLite would delete; it is not played back: move %s-journal aside (the "
		       "file it names is left alone)", v->path, super, v->path);
		return SQLITE_CANTOPEN;
	}
	c->fd = fd;
	wd_test_pause("WARPDRV_PAUSE_JOURNAL"); /* the tests swap the name here */
	return SQLITE_OK;
}

static int v_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out)
{
	struct db_vfs *v = vfs->pAppData;
	struct cfile *c = (struct cfile *)f;
	memset(c, 0, sizeof *c);
	c->fd = -1;
	c->v = v;
	int r;
	if (name && (flags & SQLITE_OPEN_MAIN_DB) && !strcmp(name, v->leaf)) {
		c->fd = v->dbfd;
		c->main = true;
		r = SQLITE_OK;
	} else if (name && (flags & SQLITE_OPEN_MAIN_JOURNAL) && !strcmp(name, v->journal)) {
		r = open_journal(v, c, flags);
	} else {
		refuse_name(v, "open", name);
		r = SQLITE_CANTOPEN;
	}
	if (r != SQLITE_OK)
		return r;
	if (out)
		*out = v->readonly ? (flags & ~SQLITE_OPEN_READWRITE) | SQLITE_OPEN_READONLY : flags;
	c->base.pMethods = &methods;
	return SQLITE_OK;
}

static int v_delete(sqlite3_vfs *vfs, const char *name, int syncdir)
{
	struct db_vfs *v = vfs->pAppData;
	if (!name || strcmp(name, v->journal)) {
		refuse_name(v, "delete", name);
		return SQLITE_IOERR_DELETE;
	}
	if (v->readonly)
		return SQLITE_READONLY;
	if (fs_leaf_unlink(v->dirfd, v->journal) < 0) /* removes a link, never its target */
		return errno == ENOENT ? SQLITE_IOERR_DELETE_NOENT : SQLITE_IOERR_DELETE;
	if (syncdir && fsync(v->dirfd) < 0 && errno != EINVAL && errno != ENOTSUP)
		return SQLITE_IOERR_DIR_FSYNC;
	return SQLITE_OK;
}

static int v_access(sqlite3_vfs *vfs, const char *name, int flags, int *out)
{
	struct db_vfs *v = vfs->pAppData;
	*out = 0;
	struct stat st;
	if (name && !strcmp(name, v->leaf)) {
		*out = 1;
	} else if (name && !strcmp(name, v->journal)) {
		/* as SQLite's unix layer: an empty journal does not "exist"; anything
		 * else there does, and opening it says what it is */
		*out = fs_leaf_lstat(v->dirfd, v->journal, &st) == 0 &&
		       (flags != SQLITE_ACCESS_EXISTS || !S_ISREG(st.st_mode) || st.st_size > 0);
	} else {
		size_t n = strlen(v->leaf);
		if (name && !strncmp(name, v->leaf, n) && !strcmp(name + n, "-wal") &&
		    fs_leaf_lstat(v->dirfd, name, &st) < 0 && errno == ENOENT)
			return SQLITE_OK; /* no log: as it should be */
		refuse_name(v, "look for", name);
		return SQLITE_IOERR_ACCESS;
	}
	return SQLITE_OK;
}

static int v_fullpath(sqlite3_vfs *vfs, const char *name, int n, char *out)
{
	struct db_vfs *v = vfs->pAppData;
	if (!name || strcmp(name, v->leaf) || (size_t)n <= strlen(name)) {
		refuse_name(v, "open", name);
		return SQLITE_CANTOPEN;
	}
	memcpy(out, name, strlen(name) + 1);
	return SQLITE_OK;
}

#define INNER(vfs) (((struct db_vfs *)(vfs)->pAppData)->inner)
static void *v_dlopen(sqlite3_vfs *vfs, const char *name)
{
	(void)vfs, (void)name;
	return NULL; /* no extension is loaded from anywhere */
}
static void v_dlerror(sqlite3_vfs *vfs, int n, char *msg)
{
	(void)vfs;
	if (n > 0)
		snprintf(msg, (size_t)n, "not loaded");
}
static void (*v_dlsym(sqlite3_vfs *vfs, void *h, const char *sym))(void)
{
	(void)vfs, (void)h, (void)sym;
	return NULL;
}
static void v_dlclose(sqlite3_vfs *vfs, void *h)
{
	(void)vfs, (void)h;
}
static int v_random(sqlite3_vfs *vfs, int n, char *out)
{
	return INNER(vfs)->xRandomness(INNER(vfs), n, out);
}
static int v_sleep(sqlite3_vfs *vfs, int us)
{
	return INNER(vfs)->xSleep(INNER(vfs), us);
}
static int v_time(sqlite3_vfs *vfs, double *t)
{
	return INNER(vfs)->xCurrentTime(INNER(vfs), t);
}
static int v_lasterr(sqlite3_vfs *vfs, int n, char *msg)
{
	(void)vfs, (void)n, (void)msg;
	return errno;
}
static int v_time64(sqlite3_vfs *vfs, sqlite3_int64 *t)
{
	return INNER(vfs)->xCurrentTimeInt64(INNER(vfs), t);
}

struct db_vfs *db_vfs_new(int dirfd, int dbfd, const char *leaf, const char *path,
			  bool readonly)
{
	sqlite3_vfs *inner = sqlite3_vfs_find(NULL);
	if (!inner || inner->iVersion < 2) {
		close(dirfd);
		close(dbfd);
		return NULL;
	}
	struct db_vfs *v = wd_xcalloc(1, sizeof *v);
	v->inner = inner;
	v->dirfd = dirfd;
	v->dbfd = dbfd;
	v->readonly = readonly;
	v->leaf = wd_xstrdup(leaf);
	v->journal = wd_xasprintf("%s-journal", leaf);
	v->path = wd_xstrdup(path);
	snprintf(v->name, sizeof v->name, "warpdrv-%p", (void *)v);
	const sqlite3_vfs def = {
		.iVersion = 2, .szOsFile = (int)sizeof(struct cfile), .mxPathname = 512,
		.zName = v->name, .pAppData = v, .xOpen = v_open, .xDelete = v_delete,
		.xAccess = v_access, .xFullPathname = v_fullpath, .xDlOpen = v_dlopen,
		.xDlError = v_dlerror, .xDlSym = v_dlsym, .xDlClose = v_dlclose,
		.xRandomness = v_random, .xSleep = v_sleep, .xCurrentTime = v_time,
		.xGetLastError = v_lasterr, .xCurrentTimeInt64 = v_time64};
	v->vfs = def;
	if (sqlite3_vfs_register(&v->vfs, 0) != SQLITE_OK) {
		v->vfs.zName = NULL;
		db_vfs_free(v);
		return NULL;
	}
	return v;
}

const char *db_vfs_file(const struct db_vfs *v)
{
	return v->leaf;
}

int *db_vfs_step_budget(struct db_vfs *v)
{
	return &v->step_budget;
}

const char *db_vfs_name(const struct db_vfs *v)
{
	return v->vfs.zName;
}

struct db_vfs *db_vfs_of(sqlite3 *h)
{
	sqlite3_vfs *vfs = NULL;
	if (!h || sqlite3_file_control(h, "main", SQLITE_FCNTL_VFS_POINTER, &vfs) != SQLITE_OK ||
	    !vfs || vfs->xOpen != v_open)
		return NULL;
	return vfs->pAppData;
}

const char *db_vfs_refused(const struct db_vfs *v)
{
	return v && v->refused[0] ? v->refused : NULL;
}

void db_vfs_free(struct db_vfs *v)
{
	if (!v)
		return;
	if (v->vfs.zName)
		sqlite3_vfs_unregister(&v->vfs);
	close(v->dirfd);
	close(v->dbfd);
	free(v->leaf);
	free(v->journal);
	free(v->path);
	free(v);
}
