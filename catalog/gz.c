#include "catalog/gz.h"

#include <string.h>

int gz_compress(const void *p, size_t n, struct wd_buf *out, struct wd_err *err)
{
	z_stream z = {0};
	/* 16 + 15 window bits: a gzip header rather than a zlib one */
	if (deflateInit2(&z, 9, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return wd_err_set(err, WD_EFAIL, "cannot start gzip compression");
	wd_buf_reset(out);
	z.next_in = (Bytef *)(uintptr_t)p;
	z.avail_in = (uInt)n;
	int s;
	do {
		wd_buf_reserve(out, 65536);
		z.next_out = (Bytef *)out->p + out->len;
		z.avail_out = (uInt)(out->cap - out->len - 1);
		s = deflate(&z, Z_FINISH);
		out->len = out->cap - 1 - z.avail_out;
	} while (s == Z_OK);
	deflateEnd(&z);
	if (s != Z_STREAM_END)
		return wd_err_set(err, WD_EFAIL, "gzip compression failed");
	return 0;
}

int gz_reader_init(struct gz_reader *g, const void *data, size_t len, uint64_t limit,
		   const char *where, struct wd_err *err)
{
	memset(g, 0, sizeof *g);
	if (inflateInit2(&g->z, 16 + 15) != Z_OK)
		return wd_err_set(err, WD_EFAIL, "%s: cannot start gzip decompression", where);
	g->open = true;
	g->z.next_in = (Bytef *)(uintptr_t)data;
	g->z.avail_in = (uInt)len;
	g->limit = limit;
	g->where = where;
	return 0;
}

static int corrupt(struct gz_reader *g, struct wd_err *err, const char *why)
{
	return wd_err_set(err, WD_ETRUST, "%s: %s", g->where, why);
}

/* One inflate call into the output space set up; the end of the stream
 * sets done. */
static int inflate_more(struct gz_reader *g, struct wd_err *err)
{
	int s = inflate(&g->z, Z_NO_FLUSH);
	if (s == Z_STREAM_END)
		g->done = true;
	else if (s == Z_BUF_ERROR && !g->z.avail_in)
		return corrupt(g, err, "truncated gzip stream");
	else if (s != Z_OK)
		return corrupt(g, err, "corrupt gzip stream");
	return 0;
}

int gz_read(struct gz_reader *g, void *buf, size_t n, struct wd_err *err)
{
	if (g->total + n > g->limit)
		return corrupt(g, err, "holds more data than its manifest declares "
			       "(a decompression bomb?)");
	g->z.next_out = buf;
	g->z.avail_out = (uInt)n;
	while (g->z.avail_out) {
		if (g->done)
			return corrupt(g, err, "truncated (the archive ends early)");
		int r = inflate_more(g, err);
		if (r)
			return r;
	}
	g->total += n;
	return 0;
}

int gz_finish(struct gz_reader *g, struct wd_err *err)
{
	unsigned char pad[512];
	while (!g->done) {
		size_t room = g->limit - g->total < sizeof pad ? (size_t)(g->limit - g->total)
							      : sizeof pad;
		g->z.next_out = pad;
		g->z.avail_out = (uInt)(room ? room : 1);
		int r = inflate_more(g, err);
		size_t got = (room ? room : 1) - g->z.avail_out;
		if (got && !room)
			return corrupt(g, err, "holds more data than its manifest declares "
				       "(a decompression bomb?)");
		g->total += got;
		for (size_t i = 0; i < got; i++)
			if (pad[i])
				return corrupt(g, err, "has data after the end of the archive");
		if (r)
			return r;
	}
	if (g->z.avail_in)
		return corrupt(g, err, "has bytes after the end of the gzip stream");
	return 0;
}

void gz_reader_free(struct gz_reader *g)
{
	if (g->open)
		inflateEnd(&g->z);
	g->open = false;
}
