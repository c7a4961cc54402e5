/* The host's memory of each repository's index (catalog/hoststate.h). */
#include "catalog/hoststate.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/date.h"
#include "common/file.h"

#define HOST_FILE "indexes"
#define HOST_MAX (1024 * 1024)

/* Each line of the file, parsed; fn returns true to stop. Lines that do not
 * parse are passed over (a later write drops them). */
static void each_line(const struct wd_buf *b,
		      bool (*fn)(void *ud, const char *signer, uint64_t serial, int issued,
				 const char *url),
		      void *ud)
{
	const char *p = b->p ? b->p : "", *end = p + b->len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char line[1200], signer[80], date[16];
		uint64_t serial;
		int used = 0, issued;
		if (n < sizeof line) {
			memcpy(line, p, n);
			line[n] = '\0';
			if (sscanf(line, "%79s %" SCNu64 " %15s %n", signer, &serial, date, &used) == 3 &&
			    used && line[used] && wd_date_parse(date, &issued) &&
			    fn(ud, signer, serial, issued, line + used))
				return;
		}
		p += n + (nl ? 1 : 0);
	}
}

static int read_all(const char *dir, struct wd_buf *b, struct wd_err *err)
{
	char *path = wd_path_join(dir, HOST_FILE);
	int r = 0;
	if (wd_exists(path)) /* host: the host state folder */
		r = wd_read_file(path, HOST_MAX, b, err); /* host: the host state folder */
	free(path);
	return r;
}

struct find {
	const char *signer, *url;
	struct host_seen *out;
};

static bool find_one(void *ud, const char *signer, uint64_t serial, int issued, const char *url)
{
	struct find *f = ud;
	if (strcmp(signer, f->signer) || strcmp(url, f->url))
		return false;
	*f->out = (struct host_seen){true, serial, issued};
	return true;
}

int host_seen_get(const char *dir, const char *signer, const char *url, struct host_seen *out,
		  struct wd_err *err)
{
	memset(out, 0, sizeof *out);
	if (!dir)
		return 0;
	struct wd_buf b = {0};
	int r = read_all(dir, &b, err);
	struct find f = {signer, url, out};
	if (!r)
		each_line(&b, find_one, &f);
	wd_buf_free(&b);
	return r;
}

static bool newest(void *ud, const char *signer, uint64_t serial, int issued, const char *url)
{
	(void)signer, (void)serial, (void)url;
	int *n = ud;
	if (issued > *n)
		*n = issued;
	return false;
}

int host_seen_newest(const char *dir, int *issued, struct wd_err *err)
{
	*issued = 0;
	if (!dir)
		return 0;
	struct wd_buf b = {0};
	int r = read_all(dir, &b, err);
	if (!r)
		each_line(&b, newest, issued);
	wd_buf_free(&b);
	return r;
}

struct rewrite {
	const char *signer, *url;
	uint64_t serial;
	int issued;
	bool done;
	struct wd_buf out;
};

static void put(struct wd_buf *out, const char *signer, uint64_t serial, int issued,
		const char *url)
{
	char d[WD_DATE_LEN];
	wd_date_format(issued, d);
	wd_buf_addf(out, "%s %" PRIu64 " %s %s\n", signer, serial, d, url);
}

static bool merge(void *ud, const char *signer, uint64_t serial, int issued, const char *url)
{
	struct rewrite *w = ud;
	if (!strcmp(signer, w->signer) && !strcmp(url, w->url)) {
		if (w->done)
			return false; /* a doubled line: the first stands */
		w->done = true;
		serial = serial > w->serial ? serial : w->serial;
		issued = issued > w->issued ? issued : w->issued;
	}
	put(&w->out, signer, serial, issued, url);
	return false;
}

int host_seen_raise(const char *dir, const char *signer, const char *url, uint64_t serial,
		    int issued, struct wd_err *err)
{
	if (!dir)
		return 0;
	if (strpbrk(url, " \t\r\n") || strlen(url) > 1000)
		return 0; /* not a URL this file can hold: nothing to remember */
	int r = wd_mkdirs(dir, err); /* host: the host state folder */
	if (r)
		return wd_err_prefix(err, "the host state folder (--host-state)");
	char *lock = wd_path_join(dir, "lock");
	int lfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644); /* host: the host state folder */
	if (lfd < 0 || flock(lfd, LOCK_EX) < 0) {
		r = wd_err_set(err, WD_EFAIL, "%s: cannot lock: %s", lock, strerror(errno));
		if (lfd >= 0)
			close(lfd);
		free(lock);
		return r;
	}
	struct wd_buf b = {0};
	struct rewrite w = {signer, url, serial, issued, false, {0}};
	r = read_all(dir, &b, err);
	if (!r) {
		each_line(&b, merge, &w);
		if (!w.done)
			put(&w.out, signer, serial, issued, url);
		char *path = wd_path_join(dir, HOST_FILE);
		if (w.out.len != b.len || (b.len && memcmp(w.out.p, b.p, b.len)))
			r = wd_write_atomic(path, w.out.p, w.out.len, 0644, err); /* host: the host state folder */
		free(path);
	}
	wd_buf_free(&b);
	wd_buf_free(&w.out);
	close(lfd); /* lets the lock go */
	free(lock);
	return r;
}
