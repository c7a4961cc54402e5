/* The ustar subset a package uses: regular files with safe relative names.
 * The reader refuses everything else (links, devices, folders, pax headers,
 * unsafe names) rather than interpreting it. */
#ifndef WD_TAR_H
#define WD_TAR_H

#include <stdint.h>

#include "common/buf.h"
#include "common/err.h"

#define TAR_BLOCK 512
#define TAR_MAX_MEMBER (64 * 1024 * 1024)

/* Writer: appends one member / the end-of-archive blocks to out. Members get
 * mode 0644, owner 0 and time 0 so that a package's bytes depend only on its
 * contents. */
void tar_add(struct wd_buf *out, const char *name, const void *data, size_t len);
void tar_end(struct wd_buf *out);

/* Reader over any byte source that reads exactly n bytes or fails. */
struct tar_reader {
	int (*read)(void *src, void *buf, size_t n, struct wd_err *err);
	void *src;
	const char *where; /* "mmlem-2.06.wdp" in messages */
};

/* The source of an archive already in memory: src is a struct wd_sv that
 * the reads consume (a short one is WD_ETRUST, "truncated"). */
int tar_mem_read(void *src, void *buf, size_t n, struct wd_err *err);

struct tar_entry {
	char name[256];
	uint64_t size;
};

/* 1 and *e filled: a member whose data must be read next with tar_data;
 * 0: the end-of-archive block; <0: an error (WD_ETRUST, naming the member). */
int tar_next(struct tar_reader *r, struct tar_entry *e, struct wd_err *err);
/* Reads the member's data (and its padding) into out. Running out of memory
 * is WD_EFAIL with a message, not an abort. */
int tar_data(struct tar_reader *r, const struct tar_entry *e, struct wd_buf *out,
	     struct wd_err *err);
/* Streams the member's data to sink in chunks of a few KiB (the padding is
 * read and dropped): memory stays the same whatever the member's size. */
int tar_data_chunks(struct tar_reader *r, const struct tar_entry *e,
		    int (*sink)(void *ctx, const void *p, size_t n, struct wd_err *err), void *ctx,
		    struct wd_err *err);

#endif
