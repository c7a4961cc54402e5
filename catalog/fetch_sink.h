/* What the transfer code behind catalog/fetch.h shares: where a transfer's
 * bytes go. fetch_curl.c moves every URL (file://, http, https) through
 * libcurl, started (curl_global_init) on the first transfer; the bundled
 * repository is the program's own data and is read in place (catalog/repo.c),
 * so a command that needs no transfer never starts libcurl. */
#ifndef WD_FETCH_SINK_H
#define WD_FETCH_SINK_H

#include <stdbool.h>
#include <stdint.h>

#include "catalog/fetch.h"

/* Where the bytes go: memory or a file descriptor, never past limit. */
struct fetch_sink {
	const struct fetch_net *net;
	const char *label;
	struct wd_buf *mem;
	int fd;
	uint64_t start, have, limit, total;
	bool over;
	int write_errno;
	struct fetch_cond *cond; /* NULL: an unconditional download */
	long status;             /* the HTTP status; 0 for a local file */
};

/* A backend's answer besides 0 and a negative code: the source ignored the
 * range asked for (or cannot serve it); the caller starts from byte 0. */
#define FETCH_FROM_START 1

/* Adds len bytes; false when they are refused (past the limit: s->over; a
 * write error: s->write_errno). */
bool fetch_sink_add(struct fetch_sink *s, const char *p, size_t len);
/* The error of a refused sink (exit 3 past the limit), or 0. */
int fetch_sink_error(const struct fetch_sink *s, const char *url, struct wd_err *err);

int fetch_curl(const struct fetch_net *net, const char *url, const struct fetch_auth *auth,
	       struct fetch_sink *s, struct wd_err *err);

#endif
