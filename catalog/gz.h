/* gzip through zlib: compress a buffer, and inflate a stream in memory with
 * a ceiling on what it may produce, so a decompression bomb stops early. */
#ifndef WD_GZ_H
#define WD_GZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#include "common/buf.h"
#include "common/err.h"

int gz_compress(const void *p, size_t n, struct wd_buf *out, struct wd_err *err);

struct gz_reader {
	z_stream z;
	bool open, done;
	uint64_t total;   /* bytes produced so far */
	uint64_t limit;   /* more than this is refused */
	const char *where;
};

int gz_reader_init(struct gz_reader *g, const void *data, size_t len, uint64_t limit,
		   const char *where, struct wd_err *err);
/* Reads exactly n bytes; running out is "truncated" (WD_ETRUST). */
int gz_read(struct gz_reader *g, void *buf, size_t n, struct wd_err *err);
/* After the archive: the rest must be zero padding within the limit, and the
 * gzip stream must end properly (its CRC and length checked). */
int gz_finish(struct gz_reader *g, struct wd_err *err);
void gz_reader_free(struct gz_reader *g);

#endif
