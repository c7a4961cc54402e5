#define _GNU_SOURCE /* syncfs */
#include "common/file.h"
#include "common/hooks.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *wd_file_kind(mode_t mode)
{
	if (S_ISLNK(mode))
		return "a symbolic link";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode) || S_ISBLK(mode))
		return "a device";
	if (S_ISSOCK(mode))
		return "a socket";
	if (S_ISDIR(mode))
		return "a folder";
	return "a file";
}

int wd_not_plain(struct wd_err *err, const char *path, mode_t mode)
{
	return wd_err_set(err, WD_EFAIL, "%s: is %s, not a plain file; warpdrv reads and "
			  "writes plain files only (replace it with the file itself)", path,
			  wd_file_kind(mode));
}

/* After open: a plain file, in blocking mode again (O_NONBLOCK was only there
 * so that opening a FIFO could not wait for a writer). */
int wd_plain_fd(int fd, const char *path, bool want_dir, struct wd_err *err)
{
	struct stat st;
	if (fstat(fd, &st) < 0) {
		int r = wd_err_set(err, WD_EFAIL, "%s: cannot examine: %s", path, strerror(errno));
		close(fd);
		return r;
	}
	if (want_dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)) {
		int r = want_dir ? wd_err_set(err, WD_EFAIL, "%s: is %s, not a folder", path,
					      wd_file_kind(st.st_mode))
				 : wd_not_plain(err, path, st.st_mode);
		close(fd);
		return r;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0 && (fl & O_NONBLOCK))
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

/* The message for a failed open: a link met where O_NOFOLLOW forbids one is
 * named as such rather than as errno's "too many levels of symbolic links". */
static int open_fail(struct wd_err *err, const char *path, int e)
{
	struct stat st;
	if ((e == ELOOP || e == ENOTDIR || e == EXDEV || e == ENXIO) && lstat(path, &st) == 0 &&
	    !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return wd_not_plain(err, path, st.st_mode);
	if (e == ELOOP || e == EXDEV)
		return wd_err_set(err, WD_EFAIL, "%s: the path goes through a symbolic link; "
				  "warpdrv does not follow links on a volume", path);
	return wd_err_set(err, WD_EFAIL, "%s: cannot open: %s", path, strerror(e));
}

int wd_open_plain(const char *path, int flags, mode_t mode, struct wd_err *err)
{
	int fd = open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode);
	if (fd < 0)
		return open_fail(err, path, errno);
	return wd_plain_fd(fd, path, false, err);
}

/* Reads the open plain file fd (closing it) into out. */
int wd_read_fd(int fd, const char *path, size_t max, struct wd_buf *out, struct wd_err *err)
{
	struct stat st;
	if (max && fstat(fd, &st) == 0 && (uint64_t)st.st_size > max) {
		close(fd);
		return wd_err_set(err, WD_EFAIL, "%s: larger than %zu bytes", path, max);
	}
	for (;;) {
		wd_buf_reserve(out, 65536);
		ssize_t n = read(fd, out->p + out->len, out->cap - out->len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(fd);
			return wd_err_set(err, WD_EFAIL, "%s: cannot read: %s", path, strerror(e));
		}
		if (n == 0)
			break;
		out->len += (size_t)n;
		if (max && out->len > max) {
			close(fd);
			return wd_err_set(err, WD_EFAIL, "%s: larger than %zu bytes", path, max);
		}
	}
	out->p[out->len] = '\0';
	close(fd);
	return 0;
}

int wd_read_file(const char *path, size_t max, struct wd_buf *out, struct wd_err *err)
{
	wd_buf_reset(out);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return wd_err_set(err, WD_EFAIL, "%s: cannot open: %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		return wd_err_set(err, WD_EFAIL, "%s: is a folder, not a file", path);
	}
	if ((fd = wd_plain_fd(fd, path, false, err)) < 0)
		return fd;
	return wd_read_fd(fd, path, max, out, err);
}

int wd_write_all(int fd, const void *data, size_t n)
{
	const char *p = data;
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int wd_write_atomic(const char *path, const void *data, size_t len, mode_t mode,
		    struct wd_err *err)
{
	char *tmp = wd_xasprintf("%s.wd-new", path);
	int fd = wd_open_plain(tmp, O_WRONLY | O_CREAT | O_TRUNC, mode, err);
	if (fd < 0) {
		free(tmp);
		return fd;
	}
	int r = wd_copy_mode_owner(path, tmp, err);
	if (r) {
		close(fd);
		unlink(tmp);
		free(tmp);
		return r;
	}
	if (wd_write_all(fd, data, len) < 0 || fsync(fd) < 0) {
		r = wd_err_set(err, WD_EFAIL, "%s: cannot write: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		free(tmp);
		return r;
	}
	close(fd);
	if (rename(tmp, path) < 0) {
		r = wd_err_set(err, WD_EFAIL, "%s: cannot replace: %s", path, strerror(errno));
		unlink(tmp);
		free(tmp);
		return r;
	}
	free(tmp);
	return wd_fsync_parent(path, err);
}

int wd_fsync_dir(const char *dir, struct wd_err *err)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return wd_err_set(err, WD_EFAIL, "%s: cannot open folder: %s", dir, strerror(errno));
	/* Some file systems (FAT over FUSE, say) refuse to sync folders; the data is
	 * then as safe as that file system makes it, which is not ours to fix. */
	if (fsync(fd) < 0 && errno != EINVAL && errno != ENOTSUP) {
		int e = errno;
		close(fd);
		return wd_err_set(err, WD_EFAIL, "%s: cannot flush folder: %s", dir, strerror(e));
	}
	close(fd);
	return 0;
}

int wd_sync_fs(const char *path, struct wd_err *err)
{
#if WD_HAVE_SYNC_FS
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return wd_err_set(err, WD_EFAIL, "%s: cannot open: %s", path, strerror(errno));
	if (syncfs(fd) < 0) {
		int e = errno;
		close(fd);
		return wd_err_set(err, WD_EFAIL, "%s: cannot flush its file system: %s", path,
				  strerror(e));
	}
	close(fd);
	return 0;
#else
	return wd_err_set(err, WD_EFAIL, "%s: this system cannot flush a whole file system at once",
			  path);
#endif
}

int wd_fsync_parent(const char *path, struct wd_err *err)
{
	char *dir = wd_dirname(path);
	int r = wd_fsync_dir(dir, err);
	free(dir);
	return r;
}

int wd_mkdirs(const char *path, struct wd_err *err)
{
	char *p = wd_xstrdup(path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST) {
			int r = wd_err_set(err, WD_EFAIL, "%s: cannot create folder: %s", p, strerror(errno));
			free(p);
			return r;
		}
		*s = '/';
	}
	if (mkdir(p, 0755) < 0 && errno != EEXIST) {
		int r = wd_err_set(err, WD_EFAIL, "%s: cannot create folder: %s", p, strerror(errno));
		free(p);
		return r;
	}
	free(p);
	return 0;
}

bool wd_exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

bool wd_is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

char *wd_path_join(const char *a, const char *b)
{
	/* by hand, not by a format: a plan joins paths for every file */
	size_t n = strlen(a), m = strlen(b);
	bool slash = !n || a[n - 1] != '/';
	char *p = wd_xmalloc(n + slash + m + 1);
	memcpy(p, a, n);
	if (slash)
		p[n] = '/';
	memcpy(p + n + slash, b, m + 1);
	return p;
}

char *wd_dirname(const char *path)
{
	const char *s = strrchr(path, '/');
	if (!s)
		return wd_xstrdup(".");
	if (s == path)
		return wd_xstrdup("/");
	return wd_xstrndup(path, (size_t)(s - path));
}

char *wd_exe_dir(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return wd_dirname(buf);
}

int wd_check_plain(const char *path, bool *exists, struct wd_err *err)
{
	struct stat st;
	if (exists)
		*exists = false;
	if (lstat(path, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		return wd_err_set(err, WD_EFAIL, "%s: cannot examine: %s", path, strerror(errno));
	}
	if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return S_ISLNK(st.st_mode)
			       ? wd_err_set(err, WD_EFAIL, "%s: is a symbolic link; warpdrv does not "
					    "follow links on a volume (replace it with the file or "
					    "folder itself)", path)
			       : wd_not_plain(err, path, st.st_mode);
	if (exists)
		*exists = true;
	return 0;
}

int wd_copy_fds(int in, int out, const char *from, const char *to, struct wd_err *err)
{
	enum { CHUNK = 256 * 1024 };
	char *buf = malloc(CHUNK);
	if (!buf)
		return wd_err_set(err, WD_EFAIL, "%s: out of memory copying it", from);
	int r = 0;
	for (;;) {
		ssize_t n = read(in, buf, CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = wd_err_set(err, WD_EFAIL, "%s: cannot read: %s", from, strerror(errno));
			break;
		}
		if (n == 0)
			break;
		if (wd_write_all(out, buf, (size_t)n) < 0) {
			r = wd_err_set(err, WD_EFAIL, "%s: cannot write: %s", to, strerror(errno));
			break;
		}
	}
	free(buf);
	return r;
}

int wd_copy_file(const char *from, const char *to, struct wd_err *err)
{
	int in = wd_open_plain(from, O_RDONLY, 0, err);
	if (in < 0)
		return in;
	struct stat st;
	fstat(in, &st);
	int out = wd_open_plain(to, O_WRONLY | O_CREAT | O_TRUNC, st.st_mode & 0777, err);
	if (out < 0) {
		close(in);
		return out;
	}
	int r = wd_copy_fds(in, out, from, to, err);
	if (!r && fchmod(out, st.st_mode & 07777) < 0)
		r = wd_err_set(err, WD_EFAIL, "%s: cannot set its mode: %s", to, strerror(errno));
	if (!r && fchown(out, st.st_uid, st.st_gid) < 0 && errno != EPERM)
		r = wd_err_set(err, WD_EFAIL, "%s: cannot set its owner: %s", to, strerror(errno));
	close(in);
	if (close(out) < 0 && !r)
		r = wd_err_set(err, WD_EFAIL, "%s: cannot write: %s", to, strerror(errno));
	if (r)
		unlink(to);
	return r;
}

int wd_copy_mode_owner(const char *old, const char *new_path, struct wd_err *err)
{
	struct stat st;
	if (lstat(old, &st) < 0)
		return errno == ENOENT ? 0
				       : wd_err_set(err, WD_EFAIL, "%s: cannot examine: %s", old,
						    strerror(errno));
	if (S_ISLNK(st.st_mode))
		return 0; /* the rename replaces the link itself: nothing to keep */
	if (!S_ISREG(st.st_mode))
		return wd_not_plain(err, old, st.st_mode);
	/* the owner first: chown may clear the set-id bits the mode then restores */
	if (lchown(new_path, st.st_uid, st.st_gid) < 0 && errno != EPERM)
		return wd_err_set(err, WD_EFAIL, "%s: cannot give it the owner of %s: %s", new_path,
				  old, strerror(errno));
	if (chmod(new_path, st.st_mode & 07777) < 0)
		return wd_err_set(err, WD_EFAIL, "%s: cannot give it the mode of %s: %s", new_path,
				  old, strerror(errno));
	return 0;
}

void wd_test_pause(const char *name)
{
	const char *file = wd_test_hook(name);
	if (!file || !*file)
		return;
	int fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0644); /* host: the test's own file */
	if (fd >= 0)
		close(fd);
	struct stat st;
	for (int i = 0; i < 2000 && stat(file, &st) == 0; i++) /* host: the test's own file */
		usleep(10000);
}
