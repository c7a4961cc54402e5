/* The gzip reader the package reader stands on. The first two bytes are the
 * ceiling on what it may produce (in 16-byte units), the third the size of
 * each read (as tar reads 512-byte blocks); the rest is the stream. Whatever
 * comes, it never produces more than the ceiling, and every refusal is a
 * trust error that names the input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/gz.h"

static void check_refusal(int r, const struct wd_err *err)
{
	if (r != -WD_ETRUST || strncmp(err->msg, "fuzz: ", 6))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 3)
		return 0;
	uint64_t limit = (uint64_t)(data[0] | data[1] << 8) * 16;
	size_t chunk = data[2] ? data[2] : 512;
	struct gz_reader g;
	struct wd_err err;
	if (gz_reader_init(&g, data + 3, size - 3, limit, "fuzz", &err))
		abort();
	unsigned char buf[512];
	int r = 0;
	while (!r && g.total + chunk <= limit && !g.done)
		r = gz_read(&g, buf, chunk, &err);
	if (!r)
		r = gz_finish(&g, &err);
	if (r)
		check_refusal(r, &err);
	if (g.total > limit)
		abort();
	gz_reader_free(&g);
	return 0;
}
