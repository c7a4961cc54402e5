#define _GNU_SOURCE /* syncfs */
#include "fs/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/openat2.h>
#include <sys/syscall.h>
#endif

#include "common/file.h"
#include "common/hooks.h"

/* A batch's kept folder handles (fs.h, fs_batch_begin). */
struct fs_batch {
	pthread_mutex_t lock;
	int depth;
	size_t n;
	struct {
		char *rel;
		int fd;
		dev_t dev;
	} dir[FS_BATCH_DIRS];
};

/* The root's path made absolute (a relative --root is taken from the
 * working folder), without "." parts, doubled or trailing slashes: every
 * host path below the root then starts with it. */
static char *absolute(const char *path)
{
	struct wd_buf b = {0};
	if (path[0] != '/') {
		char cwd[4096];
		if (getcwd(cwd, sizeof cwd))
			wd_buf_add(&b, cwd, strlen(cwd));
	}
	for (const char *s = path; *s;) {
		s += strspn(s, "/");
		size_t n = strcspn(s, "/");
		if (n && !(n == 1 && s[0] == '.')) {
			wd_buf_add(&b, "/", 1);
			wd_buf_add(&b, s, n);
		}
		s += n;
	}
	if (!b.len)
		wd_buf_add(&b, "/", 1);
	char *out = wd_xstrndup(b.p, b.len);
	wd_buf_free(&b);
	return out;
}

int fs_root_open(struct fs_root *r, const char *path, struct wd_err *err)
{
	memset(r, 0, sizeof *r);
	r->fd = -1;
	r->path = absolute(path);
	r->len = strlen(r->path);
	/* The root is the one path the user gave (a link there is the user's
	 * own, /mnt/os2 -> the mounted image, and followed): opened once. */
	int fd = open(r->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		int rc = wd_err_set(err, WD_EFAIL, "%s: cannot open folder: %s", r->path,
				    e == ENOTDIR ? "not a folder" : strerror(e));
		fs_root_close(r);
		return rc;
	}
	r->fd = fd;
	r->dev = st.st_dev;
	r->batch = wd_xcalloc(1, sizeof *r->batch);
	pthread_mutex_init(&r->batch->lock, NULL);
	return 0;
}

static void batch_close(struct fs_batch *b)
{
	for (size_t i = 0; i < b->n; i++) {
		close(b->dir[i].fd);
		free(b->dir[i].rel);
	}
	b->n = 0;
}

void fs_root_close(struct fs_root *r)
{
	if (r->fd >= 0)
		close(r->fd);
	if (r->batch) {
		batch_close(r->batch);
		pthread_mutex_destroy(&r->batch->lock);
		free(r->batch);
	}
	free(r->path);
	memset(r, 0, sizeof *r);
	r->fd = -1;
}

/* The host path of rel, for messages (malloc'd). */
static char *host_of(const struct fs_root *r, const char *rel)
{
	return *rel ? wd_path_join(r->path, rel) : wd_xstrdup(r->path);
}

const char *fs_rel(const struct fs_root *r, const char *p, struct wd_err *err)
{
	const char *rel = p;
	if (p[0] == '/') {
		bool top = r->len == 1; /* the root is "/" itself */
		if (!top && (strncmp(p, r->path, r->len) || (p[r->len] != '/' && p[r->len])))
			goto outside;
		rel = p + (top ? 0 : r->len);
	}
	while (*rel == '/')
		rel++;
	for (const char *s = rel; *s;) {
		size_t n = strcspn(s, "/");
		if (n == 2 && s[0] == '.' && s[1] == '.') {
			wd_err_set(err, WD_ETRUST, "%s: a path on the volume may not use '..'", p);
			return NULL;
		}
		s += n;
		s += strspn(s, "/");
	}
	return rel;
outside:
	wd_err_set(err, WD_EFAIL, "%s: not inside the volume %s", p, r->path);
	return NULL;
}

/* ---- resolving beneath the root ---- */

/* openat2(2) where the kernel has it: 0 and *fd set, or -1 with errno (ENOSYS
 * when the kernel or the C library lacks it, so the caller walks instead). */
static int openat2_beneath(int dfd, const char *rel, int flags, mode_t mode, int *fd)
{
#if defined(__linux__) && defined(SYS_openat2)
	struct open_how how = {.flags = (uint64_t)flags, .mode = (uint64_t)mode,
			       .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
					  RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV};
	long r = syscall(SYS_openat2, dfd, *rel ? rel : ".", &how, sizeof how);
	if (r < 0)
		return -1;
	*fd = (int)r;
	return 0;
#else
	(void)dfd, (void)rel, (void)flags, (void)mode, (void)fd;
	errno = ENOSYS;
	return -1;
#endif
}

/* Is the open descriptor on the root's file system? (-1 and EXDEV if not.) */
static int same_dev(const struct fs_root *r, int fd)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return -1;
	if (st.st_dev != r->dev) {
		errno = EXDEV;
		return -1;
	}
	return 0;
}

/* The walk: each folder opened with O_NOFOLLOW | O_DIRECTORY from the one
 * before it (a folder on another file system refused), then the last
 * component with flags. -1 and errno on failure. */
static int openat_walk(const struct fs_root *r, const char *rel, int flags, mode_t mode)
{
	int cur = dup(r->fd);
	if (cur < 0)
		return -1;
	const char *s = rel;
	while (*s == '/')
		s++;
	if (!*s) {
		int fd = openat(cur, ".", flags & ~(O_CREAT | O_EXCL), mode);
		close(cur);
		return fd;
	}
	for (;;) {
		size_t n = strcspn(s, "/");
		char comp[256];
		if (n >= sizeof comp) {
			close(cur);
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(comp, s, n);
		comp[n] = '\0';
		s += n;
		s += strspn(s, "/");
		bool last = !*s;
		if (!strcmp(comp, ".") && !last)
			continue;
		int next = last ? openat(cur, comp, flags, mode)
				: openat(cur, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int saved = errno;
		struct stat st;
		/* a link to a folder fails O_DIRECTORY | O_NOFOLLOW as "not a folder" */
		if (next < 0 && saved == ENOTDIR &&
		    fstatat(cur, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
			saved = ELOOP;
		close(cur);
		if (next >= 0 && same_dev(r, next) < 0) {
			saved = errno;
			close(next);
			next = -1;
		}
		errno = saved;
		if (next < 0 || last)
			return next;
		cur = next;
	}
}

/* Opens rel beneath the root: -1 and errno on failure. The tests ask for the
 * walk (WARPDRV_NO_OPENAT2) so that both ways are tried. */
static int open_beneath(const struct fs_root *r, const char *rel, int flags, mode_t mode)
{
	flags |= O_NOFOLLOW | O_CLOEXEC;
	int fd = -1;
	bool walk = wd_test_hook("WARPDRV_NO_OPENAT2") != NULL;
	if (!walk && openat2_beneath(r->fd, rel, flags, mode, &fd) < 0) {
		if (errno != ENOSYS && errno != EPERM)
			return -1;
		walk = true;
	}
	return walk ? openat_walk(r, rel, flags, mode) : fd;
}

/* The message for a failed open of rel: a link or special file met is named
 * as such rather than as errno's "too many levels of symbolic links". */
static int open_fail(const struct fs_root *r, const char *rel, int e, struct wd_err *err)
{
	char *path = host_of(r, rel);
	struct stat st;
	int rc;
	bool there = (e == ELOOP || e == ENOTDIR || e == EXDEV || e == ENXIO) &&
		     fs_lstat(r, rel, &st) == 0;
	if (there && S_ISLNK(st.st_mode))
		rc = wd_err_set(err, WD_EFAIL, "%s: is a symbolic link; warpdrv does not follow "
				"links on a volume (replace it with the folder or file itself)", path);
	else if (there && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		rc = wd_not_plain(err, path, st.st_mode);
	else if (e == ELOOP)
		rc = wd_err_set(err, WD_EFAIL, "%s: the path goes through a symbolic link; "
				"warpdrv does not follow links on a volume", path);
	else if (e == EXDEV)
		rc = wd_err_set(err, WD_EFAIL, "%s: the path leaves the volume's file system "
				"(a mount or a link); warpdrv stays on the volume's own", path);
	else
		rc = wd_err_set(err, WD_EFAIL, "%s: cannot open: %s", path, strerror(e));
	free(path);
	return rc;
}

/* The kept handle of the folder rel in a batch, or -1. */
static int batch_find(const struct fs_root *r, const char *rel)
{
	struct fs_batch *b = r->batch;
	int fd = -1;
	if (!b)
		return -1;
	pthread_mutex_lock(&b->lock);
	for (size_t i = 0; b->depth && i < b->n; i++)
		if (!strcmp(b->dir[i].rel, rel))
			fd = b->dir[i].fd;
	pthread_mutex_unlock(&b->lock);
	return fd;
}

/* Keeps fd, just opened beneath the root for the folder rel, while a batch
 * runs and has room (else put_dir closes it after its operation). */
static void batch_keep(const struct fs_root *r, const char *rel, int fd)
{
	struct fs_batch *b = r->batch;
	struct stat st;
	if (!b || fstat(fd, &st) < 0)
		return;
	pthread_mutex_lock(&b->lock);
	/* threads of one batch may open the same folder at once: one handle
	 * is kept, the others are closed after their operation (put_dir) */
	bool held = false;
	for (size_t i = 0; i < b->n; i++)
		held |= !strcmp(b->dir[i].rel, rel);
	if (b->depth && !held && b->n < FS_BATCH_DIRS) {
		b->dir[b->n].rel = wd_xstrdup(rel);
		b->dir[b->n].fd = fd;
		b->dir[b->n++].dev = st.st_dev;
	}
	pthread_mutex_unlock(&b->lock);
}

static bool batch_has(const struct fs_root *r, int fd)
{
	struct fs_batch *b = r->batch;
	bool has = false;
	if (!b)
		return false;
	pthread_mutex_lock(&b->lock);
	for (size_t i = 0; i < b->n; i++)
		has |= b->dir[i].fd == fd;
	pthread_mutex_unlock(&b->lock);
	return has;
}

/* Ends an operation's use of a folder handle from parent_of: closed, unless
 * a batch keeps it. */
static void put_dir(const struct fs_root *r, int fd)
{
	if (!batch_has(r, fd))
		close(fd);
}

void fs_batch_begin(const struct fs_root *r)
{
	if (r->batch)
		r->batch->depth++;
}

bool fs_batch_open(const struct fs_root *r)
{
	return r->batch && r->batch->depth > 0;
}

void fs_batch_end(const struct fs_root *r)
{
	struct fs_batch *b = r->batch;
	if (b && b->depth && !--b->depth)
		batch_close(b);
}

int fs_on_root_dev(const struct fs_root *r, const char *p)
{
	struct wd_err e;
	const char *rel = fs_rel(r, p, &e);
	if (!rel) {
		errno = EINVAL;
		return -1;
	}
	char *d = wd_dirname(rel);
	const char *dir = strcmp(d, ".") ? d : "";
	struct fs_batch *b = r->batch;
	int on = -1;
	if (b) {
		pthread_mutex_lock(&b->lock);
		for (size_t i = 0; b->depth && i < b->n; i++)
			if (!strcmp(b->dir[i].rel, dir))
				on = b->dir[i].dev == r->dev;
		pthread_mutex_unlock(&b->lock);
	}
	free(d);
	if (on >= 0)
		return on;
	struct stat st;
	if (fs_lstat(r, p, &st) < 0)
		return -1;
	return st.st_dev == r->dev;
}

/* The folder of p opened beneath the root (or kept by a batch: put_dir ends
 * its use), and the last component: 0, or -1 with errno. *leaf points into
 * the malloc'd *buf. */
static int parent_of(const struct fs_root *r, const char *p, int *pfd, const char **leaf,
		     char **buf, struct wd_err *err)
{
	*buf = NULL;
	const char *rel = fs_rel(r, p, err);
	if (!rel) {
		errno = EINVAL;
		return -1;
	}
	char *b = wd_xstrdup(rel);
	size_t n = strlen(b);
	while (n && b[n - 1] == '/')
		b[--n] = '\0';
	char *slash = strrchr(b, '/');
	const char *name = slash ? slash + 1 : b;
	if (!*name || !strcmp(name, ".")) {
		free(b);
		errno = EINVAL;
		wd_err_set(err, WD_EFAIL, "'%s': names no file on the volume", p);
		return -1;
	}
	if (slash)
		*slash = '\0';
	int fd = batch_find(r, slash ? b : "");
	if (fd < 0 && (fd = open_beneath(r, slash ? b : "", O_RDONLY | O_DIRECTORY, 0)) >= 0)
		batch_keep(r, slash ? b : "", fd);
	if (fd < 0) {
		int e = errno;
		open_fail(r, slash ? b : "", e, err);
		free(b);
		errno = e;
		return -1;
	}
	*pfd = fd;
	*leaf = name;
	*buf = b;
	return 0;
}

/* Runs op on the last component of p in its folder, opened beneath the
 * root: op's result (0, or -1 with errno), or -1 with errno when the folder
 * cannot be opened. */
static int at_name(const struct fs_root *r, const char *p,
		   int (*op)(int dfd, const char *leaf, void *arg), void *arg)
{
	int pfd;
	const char *leaf;
	char *buf;
	struct wd_err e;
	if (parent_of(r, p, &pfd, &leaf, &buf, &e) < 0)
		return -1;
	int rc = op(pfd, leaf, arg);
	int saved = errno;
	put_dir(r, pfd);
	free(buf);
	errno = saved;
	return rc;
}

static int op_stat(int dfd, const char *leaf, void *arg)
{
	return fstatat(dfd, leaf, arg, AT_SYMLINK_NOFOLLOW);
}

static int op_unlink(int dfd, const char *leaf, void *arg)
{
	return unlinkat(dfd, leaf, *(int *)arg);
}

static int op_mkdir(int dfd, const char *leaf, void *arg)
{
	return mkdirat(dfd, leaf, *(mode_t *)arg);
}

int fs_lstat(const struct fs_root *r, const char *p, struct stat *st)
{
	struct wd_err e;
	const char *rel = fs_rel(r, p, &e);
	if (!rel) {
		errno = EINVAL;
		return -1;
	}
	return *rel ? at_name(r, rel, op_stat, st) : fstat(r->fd, st);
}

bool fs_exists(const struct fs_root *r, const char *p)
{
	struct stat st;
	return fs_lstat(r, p, &st) == 0;
}

bool fs_is_dir(const struct fs_root *r, const char *p)
{
	struct stat st;
	return fs_lstat(r, p, &st) == 0 && S_ISDIR(st.st_mode);
}

bool fs_is_file(const struct fs_root *r, const char *p)
{
	struct stat st;
	return fs_lstat(r, p, &st) == 0 && S_ISREG(st.st_mode);
}

int fs_open(const struct fs_root *r, const char *p, int flags, struct wd_err *err)
{
	const char *rel = fs_rel(r, p, err);
	if (!rel)
		return -err->code;
	if (flags & (O_CREAT | O_TRUNC | O_APPEND))
		return wd_err_set(err, WD_EFAIL, "%s: internal error: fs_open does not create or "
				  "truncate (fs_create, fs_open_inplace do)", p);
	int fd = open_beneath(r, rel, flags | O_NONBLOCK, 0);
	if (fd < 0)
		return open_fail(r, rel, errno, err);
	char *path = host_of(r, rel);
	int rc = wd_plain_fd(fd, path, (flags & O_DIRECTORY) != 0, err);
	free(path);
	return rc;
}

int fs_open_dir(const struct fs_root *r, const char *p, struct wd_err *err)
{
	return fs_open(r, p, O_RDONLY | O_DIRECTORY, err);
}

DIR *fs_opendir(const struct fs_root *r, const char *p)
{
	struct wd_err e;
	int fd = fs_open_dir(r, p, &e);
	if (fd < 0) {
		errno = ENOENT;
		return NULL;
	}
	DIR *d = fdopendir(fd);
	if (!d)
		close(fd);
	return d;
}

static int sys_fail(struct wd_err *err, const struct fs_root *r, const char *p,
		    const char *what, int e)
{
	const char *rel = fs_rel(r, p, err);
	char *path = host_of(r, rel ? rel : "");
	int rc = wd_err_set(err, WD_EFAIL, "%s: cannot %s: %s", rel ? path : p, what, strerror(e));
	free(path);
	return rc;
}

int fs_create(const struct fs_root *r, const char *p, mode_t mode, bool stale,
	      struct wd_err *err)
{
	int pfd;
	const char *leaf;
	char *buf;
	if (parent_of(r, p, &pfd, &leaf, &buf, err) < 0)
		return -err->code;
	int rc = 0;
	const int how = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	int fd = openat(pfd, leaf, how, mode);
	/* a stale file there (a temporary an interrupted run left) is unlinked
	 * by handle, then the name made afresh: never written through */
	if (fd < 0 && errno == EEXIST && stale) {
		if (unlinkat(pfd, leaf, 0) < 0 && errno != ENOENT)
			rc = sys_fail(err, r, p, "remove the stale file", errno);
		else
			fd = openat(pfd, leaf, how, mode);
	}
	if (!rc && fd < 0)
		rc = errno == EEXIST ? sys_fail(err, r, p, "create (something is there already)", errno)
				     : sys_fail(err, r, p, "create", errno);
	put_dir(r, pfd);
	free(buf);
	return rc ? rc : fd;
}

int fs_check_single(int fd, const char *path, struct wd_err *err)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return wd_err_set(err, WD_EFAIL, "%s: cannot examine: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return wd_not_plain(err, path, st.st_mode);
	if (st.st_nlink != 1)
		return wd_err_set(err, WD_EFAIL, "%s: has %lu hard links; warpdrv writes this file "
				  "in place and refuses one that may be linked to a file elsewhere "
				  "(remove the other links, or this file)", path,
				  (unsigned long)st.st_nlink);
	return 0;
}

static bool leaf_ok(const char *leaf)
{
	return *leaf && !strchr(leaf, '/') && strcmp(leaf, ".") && strcmp(leaf, "..");
}

int fs_leaf_open(int dirfd, const char *leaf, bool write, bool create, mode_t mode,
		 struct stat *st)
{
	memset(st, 0, sizeof *st);
	if (!leaf_ok(leaf)) {
		errno = EINVAL;
		return -1;
	}
	int acc = write ? O_RDWR : O_RDONLY;
	int fd = create ? openat(dirfd, leaf, acc | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
			: openat(dirfd, leaf, acc | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		fstatat(dirfd, leaf, st, AT_SYMLINK_NOFOLLOW);
		errno = e;
		return -1;
	}
	int e = 0;
	if (fstat(fd, st) < 0)
		e = errno;
	else if (!S_ISREG(st->st_mode))
		e = EINVAL;
	else if (st->st_nlink != 1)
		e = EMLINK;
	if (e) {
		close(fd);
		errno = e;
		return -1;
	}
	if (!create)
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

int fs_leaf_lstat(int dirfd, const char *leaf, struct stat *st)
{
	if (!leaf_ok(leaf)) {
		errno = EINVAL;
		return -1;
	}
	return fstatat(dirfd, leaf, st, AT_SYMLINK_NOFOLLOW);
}

int fs_leaf_unlink(int dirfd, const char *leaf)
{
	if (!leaf_ok(leaf)) {
		errno = EINVAL;
		return -1;
	}
	return unlinkat(dirfd, leaf, 0);
}

int fs_open_inplace(const struct fs_root *r, const char *p, mode_t mode, bool *created,
		    struct wd_err *err)
{
	int pfd;
	const char *leaf;
	char *buf;
	if (created)
		*created = false;
	if (parent_of(r, p, &pfd, &leaf, &buf, err) < 0)
		return -err->code;
	bool made = true;
	int fd = openat(pfd, leaf, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0 && errno == EEXIST) {
		made = false;
		fd = openat(pfd, leaf, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	}
	int e = errno;
	put_dir(r, pfd);
	free(buf);
	const char *rel = fs_rel(r, p, err);
	if (fd < 0)
		return open_fail(r, rel, e, err);
	char *path = host_of(r, rel);
	int rc = fs_check_single(fd, path, err);
	free(path);
	if (rc) {
		close(fd);
		return rc;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0 && (fl & O_NONBLOCK))
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	if (created)
		*created = made;
	return fd;
}

int fs_rename(const struct fs_root *r, const char *from, const char *to, struct wd_err *err)
{
	int a, b;
	const char *la, *lb;
	char *ba, *bb;
	if (parent_of(r, from, &a, &la, &ba, err) < 0)
		return -err->code;
	if (parent_of(r, to, &b, &lb, &bb, err) < 0) {
		put_dir(r, a);
		free(ba);
		return -err->code;
	}
	int rc = renameat(a, la, b, lb) < 0 ? sys_fail(err, r, to, "rename into place", errno) : 0;
	put_dir(r, a);
	if (b != a)
		put_dir(r, b);
	free(ba);
	free(bb);
	return rc;
}

int fs_unlink_errno(const struct fs_root *r, const char *p)
{
	int flags = 0;
	return at_name(r, p, op_unlink, &flags) < 0 && errno != ENOENT ? errno : 0;
}

int fs_unlink(const struct fs_root *r, const char *p, struct wd_err *err)
{
	int e = fs_unlink_errno(r, p);
	return e ? sys_fail(err, r, p, "delete", e) : 0;
}

int fs_rmdir(const struct fs_root *r, const char *p)
{
	int flags = AT_REMOVEDIR;
	return at_name(r, p, op_unlink, &flags);
}

int fs_mkdir(const struct fs_root *r, const char *p, mode_t mode)
{
	return at_name(r, p, op_mkdir, &mode);
}

int fs_mkdir_err(const struct fs_root *r, const char *p, mode_t mode, struct wd_err *err)
{
	int pfd;
	const char *leaf;
	char *buf;
	if (parent_of(r, p, &pfd, &leaf, &buf, err) < 0)
		return -err->code;
	struct stat st;
	int rc = 0;
	if (mkdirat(pfd, leaf, mode) < 0 &&
	    (errno != EEXIST || fstatat(pfd, leaf, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	     !S_ISDIR(st.st_mode)))
		rc = errno == EEXIST ? open_fail(r, fs_rel(r, p, err), ENOTDIR, err)
				     : sys_fail(err, r, p, "create folder", errno);
	put_dir(r, pfd);
	free(buf);
	return rc;
}

int fs_mkdirs(const struct fs_root *r, const char *p, struct wd_err *err)
{
	const char *rel = fs_rel(r, p, err);
	if (!rel)
		return -err->code;
	char *b = wd_xstrdup(rel);
	int rc = 0;
	for (char *s = b;; s++) {
		if (*s && *s != '/')
			continue;
		char c = *s;
		*s = '\0';
		size_t n = strlen(b);
		if (n && b[n - 1] != '/') {
			if (fs_mkdir(r, b, 0755) < 0 && errno != EEXIST)
				rc = sys_fail(err, r, b, "create folder", errno);
			int fd = rc ? rc : fs_open_dir(r, b, err);
			if (fd < 0)
				rc = fd;
			else
				close(fd);
		}
		*s = c;
		if (rc || !c)
			break;
	}
	free(b);
	return rc;
}

static int fsync_fd(int fd, const char *what, const struct fs_root *r, const char *p,
		    struct wd_err *err)
{
	/* Some file systems (FAT over FUSE, say) refuse to sync folders; the data is
	 * then as safe as that file system makes it, which is not ours to fix. */
	int rc = 0;
	if (fsync(fd) < 0 && errno != EINVAL && errno != ENOTSUP)
		rc = sys_fail(err, r, p, what, errno);
	close(fd);
	return rc;
}

int fs_fsync_dir(const struct fs_root *r, const char *p, struct wd_err *err)
{
	int fd = fs_open_dir(r, p, err);
	return fd < 0 ? fd : fsync_fd(fd, "flush folder", r, p, err);
}

int fs_fsync_parent(const struct fs_root *r, const char *p, struct wd_err *err)
{
	const char *rel = fs_rel(r, p, err);
	if (!rel)
		return -err->code;
	char *d = wd_dirname(rel);
	int rc = fs_fsync_dir(r, strcmp(d, ".") ? d : "", err);
	free(d);
	return rc;
}

int fs_fsync_file(const struct fs_root *r, const char *p, struct wd_err *err)
{
	int fd = fs_open(r, p, O_RDONLY, err);
	return fd < 0 ? fd : fsync_fd(fd, "flush", r, p, err);
}

int fs_sync_all(const struct fs_root *r, struct wd_err *err)
{
#if WD_HAVE_SYNC_FS
	if (syncfs(r->fd) < 0)
		return wd_err_set(err, WD_EFAIL, "%s: cannot flush its file system: %s", r->path,
				  strerror(errno));
	return 0;
#else
	return wd_err_set(err, WD_EFAIL, "%s: this system cannot flush a whole file system at once",
			  r->path);
#endif
}

int fs_read(const struct fs_root *r, const char *p, size_t max, struct wd_buf *out,
	    struct wd_err *err)
{
	wd_buf_reset(out);
	int fd = fs_open(r, p, O_RDONLY, err);
	if (fd < 0)
		return fd;
	const char *rel = fs_rel(r, p, err);
	char *path = host_of(r, rel);
	int rc = wd_read_fd(fd, path, max, out, err);
	free(path);
	return rc;
}

int fs_read_tail(const struct fs_root *r, const char *p, size_t max, struct wd_buf *out,
		 bool *whole, struct wd_err *err)
{
	wd_buf_reset(out);
	*whole = true;
	int fd = fs_open(r, p, O_RDONLY, err);
	if (fd < 0)
		return fd;
	const char *rel = fs_rel(r, p, err);
	char *path = host_of(r, rel);
	struct stat st;
	int rc = fs_check_single(fd, path, err);
	if (!rc && fstat(fd, &st) < 0)
		rc = sys_fail(err, r, p, "examine", errno);
	if (!rc) {
		off_t from = st.st_size > (off_t)max ? st.st_size - (off_t)max : 0;
		*whole = from == 0;
		wd_buf_reserve(out, max + 1);
		while (!rc && out->len < max) {
			ssize_t n = pread(fd, out->p + out->len, max - out->len,
					  from + (off_t)out->len);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				rc = sys_fail(err, r, p, "read", errno);
			else if (n == 0)
				break;
			else
				out->len += (size_t)n;
		}
		out->p[out->len] = '\0';
	}
	close(fd);
	free(path);
	return rc;
}

int fs_sha256(const struct fs_root *r, const char *p, char out[WD_SHA256_HEX],
	      struct wd_err *err)
{
	int fd = fs_open(r, p, O_RDONLY, err);
	if (fd < 0)
		return fd;
	int rc = wd_sha256_fd(fd, p, out, err);
	close(fd);
	return rc;
}

bool fs_has_sha256(const struct fs_root *r, const char *p, const char *sha)
{
	char hex[WD_SHA256_HEX];
	struct wd_err e;
	return fs_is_file(r, p) && !fs_sha256(r, p, hex, &e) && !strcmp(hex, sha);
}

int fs_copy_mode_owner(const struct fs_root *r, const char *old, int fd, const char *fd_path,
		       struct wd_err *err)
{
	struct stat st;
	if (fs_lstat(r, old, &st) < 0)
		return errno == ENOENT ? 0 : sys_fail(err, r, old, "examine", errno);
	if (!S_ISREG(st.st_mode))
		return wd_not_plain(err, old, st.st_mode);
	/* the owner first: chown may clear the set-id bits the mode then restores */
	if (fchown(fd, st.st_uid, st.st_gid) < 0 && errno != EPERM)
		return wd_err_set(err, WD_EFAIL, "%s: cannot give it the owner of %s: %s", fd_path,
				  old, strerror(errno));
	if (fchmod(fd, st.st_mode & 07777) < 0)
		return wd_err_set(err, WD_EFAIL, "%s: cannot give it the mode of %s: %s", fd_path,
				  old, strerror(errno));
	return 0;
}

int fs_write_new(const struct fs_root *r, const char *p, const void *data, size_t len,
		 mode_t mode, bool nosync, struct wd_err *err)
{
	int fd = fs_create(r, p, mode, true, err);
	if (fd < 0)
		return fd;
	int rc = 0;
	if (wd_write_all(fd, data, len) < 0 || (!nosync && fsync(fd) < 0))
		rc = sys_fail(err, r, p, "write", errno);
	if (close(fd) < 0 && !rc)
		rc = sys_fail(err, r, p, "write", errno);
	return rc;
}

int fs_write_atomic(const struct fs_root *r, const char *p, const void *data, size_t len,
		    mode_t mode, struct wd_err *err)
{
	char *tmp = wd_xasprintf("%s.wd-new", p);
	int fd = fs_create(r, tmp, mode, true, err);
	if (fd < 0) {
		free(tmp);
		return fd;
	}
	int rc = fs_copy_mode_owner(r, p, fd, tmp, err);
	if (!rc && (wd_write_all(fd, data, len) < 0 || fsync(fd) < 0))
		rc = sys_fail(err, r, tmp, "write", errno);
	if (close(fd) < 0 && !rc)
		rc = sys_fail(err, r, tmp, "write", errno);
	if (!rc)
		rc = fs_rename(r, tmp, p, err);
	if (rc) {
		struct wd_err e;
		fs_unlink(r, tmp, &e);
	}
	free(tmp);
	return rc ? rc : fs_fsync_parent(r, p, err);
}

int fs_copy(const struct fs_root *r, const char *from, const char *to, struct wd_err *err)
{
	int in = fs_open(r, from, O_RDONLY, err);
	if (in < 0)
		return in;
	struct stat st;
	if (fstat(in, &st) < 0) {
		close(in);
		return sys_fail(err, r, from, "examine", errno);
	}
	int out = fs_create(r, to, st.st_mode & 0777, true, err);
	if (out < 0) {
		close(in);
		return out;
	}
	int rc = wd_copy_fds(in, out, from, to, err);
	if (!rc && fchown(out, st.st_uid, st.st_gid) < 0 && errno != EPERM)
		rc = wd_err_set(err, WD_EFAIL, "%s: cannot set its owner: %s", to, strerror(errno));
	if (!rc && fchmod(out, st.st_mode & 07777) < 0)
		rc = wd_err_set(err, WD_EFAIL, "%s: cannot set its mode: %s", to, strerror(errno));
	close(in);
	if (close(out) < 0 && !rc)
		rc = sys_fail(err, r, to, "write", errno);
	if (rc) {
		struct wd_err e;
		fs_unlink(r, to, &e);
	}
	return rc;
}

int fs_chmod(const struct fs_root *r, const char *p, mode_t mode, struct wd_err *err)
{
	int fd = fs_open(r, p, O_RDONLY, err);
	if (fd < 0)
		return fd;
	int rc = fchmod(fd, mode) < 0 ? sys_fail(err, r, p, "set the mode of", errno) : 0;
	close(fd);
	return rc;
}

int fs_free_bytes(const struct fs_root *r, unsigned long long *free_bytes, struct wd_err *err)
{
	struct statvfs sv;
	if (fstatvfs(r->fd, &sv) < 0)
		return wd_err_set(err, WD_EFAIL, "%s: cannot ask its free space: %s", r->path,
				  strerror(errno));
	*free_bytes = (unsigned long long)sv.f_bavail * sv.f_frsize;
	return 0;
}
