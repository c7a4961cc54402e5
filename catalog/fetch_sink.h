/* What the transfer code behind catalog/fetch.h shares: where a transfer's
 * bytes go. catalog/fetch_helper.c hands every URL (file://, http, https) to
 * the transfer helper warpdrv-fetch (xfer/warpdrv_fetch.c, libcurl), started
 * on the first transfer; the bundled repository is the program's own data
 * and is read in place (catalog/repo.c), so a command that needs no transfer
 * never starts the helper, and warpdrv itself never loads libcurl. */
#ifndef WD_FETCH_SINK_H
#define WD_FETCH_SINK_H

#include <stdbool.h>
#include <stdint.h>

#include "catalog/fetch.h"

/* Where the bytes go: memory or a file descriptor, never past limit. */
struct fetch_sink {
	const struct fetch_net *net;
	const char *label;
	struct wd_buf *mem;      /* memory (the helper writes a memfd read back) */
	int fd;                  /* else this file, from its offset on */
	uint64_t start, have, limit, total;
	struct fetch_cond *cond; /* NULL: an unconditional download */
	long status;             /* the HTTP status; 0 for a local file */
};

/* One transfer into s by the helper: 0, a negative code, or
 * XFER_FROM_START (xfer/proto.h: the range was not served; the caller
 * starts from byte 0). s->have and s->status are the answer's. */
int fetch_remote(const struct fetch_net *net, const char *url, const struct fetch_auth *auth,
		 struct fetch_sink *s, struct wd_err *err);

#endif
