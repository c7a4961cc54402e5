/* file:// URLs, read here rather than through libcurl: a local repository
 * (the bundled one, a folder given to --repo) then costs no library load.
 * The same rules as a download: never more bytes than declared, and a
 * resume reads on from where the partial file ends. */
#include "catalog/fetch_sink.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/file.h"

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)(c | 0x20);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The path of a file:// URL (file:///p, or the host localhost or 127.0.0.1
 * as libcurl allows) with its %XX escapes decoded; NULL for another host, a
 * bad escape or an escaped NUL. */
static char *url_path(const char *url)
{
	const char *p = url + 7; /* after "file://" */
	if (!strncasecmp(p, "localhost/", 10) || !strncmp(p, "127.0.0.1/", 10))
		p += 9;
	if (*p != '/')
		return NULL;
	size_t n = strcspn(p, "?#");
	char *out = wd_xmalloc(n + 1), *o = out;
	for (size_t i = 0; i < n; i++) {
		if (p[i] != '%') {
			*o++ = p[i];
			continue;
		}
		int hi = i + 1 < n ? hex_digit(p[i + 1]) : -1;
		int lo = i + 2 < n ? hex_digit(p[i + 2]) : -1;
		if (hi < 0 || lo < 0 || (hi | lo) == 0) {
			free(out);
			return NULL;
		}
		*o++ = (char)(hi << 4 | lo);
		i += 2;
	}
	*o = '\0';
	return out;
}

/* Copies fd from s->start to its end into s. */
static int copy_from(int fd, const char *url, const char *path, struct fetch_sink *s,
		     struct wd_err *err)
{
	char chunk[65536];
	for (off_t at = (off_t)s->start;;) {
		ssize_t n = pread(fd, chunk, sizeof chunk, at);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return wd_err_set(err, WD_EFAIL, "%s: cannot read %s: %s", url, path,
					  strerror(errno));
		if (n == 0)
			return 0;
		if (!fetch_sink_add(s, chunk, (size_t)n))
			return fetch_sink_error(s, url, err);
		at += n;
	}
}

/* One file:// transfer into s: 0, a negative code, or FETCH_FROM_START
 * (the partial file is longer than the file). */
int fetch_local(const char *url, struct fetch_sink *s, struct wd_err *err)
{
	char *path = url_path(url);
	if (!path)
		return wd_err_set(err, WD_EFAIL, "%s: not a local file URL (expected "
				  "file:///absolute/path, %%XX escapes for other bytes)", url);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	int r = 0;
	if (fd < 0 || fstat(fd, &st) < 0)
		r = wd_err_set(err, WD_EFAIL, "%s: cannot fetch: %s: %s", url, path,
			       strerror(errno));
	else if (!S_ISREG(st.st_mode))
		r = wd_err_set(err, WD_EFAIL, "%s: cannot fetch: %s is %s, not a file", url, path,
			       wd_file_kind(st.st_mode));
	else if (s->start > (uint64_t)st.st_size)
		r = FETCH_FROM_START;
	else
		r = copy_from(fd, url, path, s, err);
	if (fd >= 0)
		close(fd);
	free(path);
	return r;
}
