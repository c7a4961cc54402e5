#define _GNU_SOURCE /* syncfs */
#include "common/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int wd_read_file(const char *path, size_t max, struct wd_buf *out, struct wd_err *err)
{
	wd_buf_reset(out);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return wd_err_set(err, WD_EFAIL, "%s: cannot open: %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		return wd_err_set(err, WD_EFAIL, "%s: is a folder, not a file", path);
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

static int write_all(int fd, const char *p, size_t n)
{
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
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0) {
		int r = wd_err_set(err, WD_EFAIL, "%s: cannot create: %s", tmp, strerror(errno));
		free(tmp);
		return r;
	}
	if (write_all(fd, data, len) < 0 || fsync(fd) < 0) {
		int r = wd_err_set(err, WD_EFAIL, "%s: cannot write: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		free(tmp);
		return r;
	}
	close(fd);
	if (rename(tmp, path) < 0) {
		int r = wd_err_set(err, WD_EFAIL, "%s: cannot replace: %s", path, strerror(errno));
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
	size_t n = strlen(a);
	if (n && a[n - 1] == '/')
		return wd_xasprintf("%s%s", a, b);
	return wd_xasprintf("%s/%s", a, b);
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
