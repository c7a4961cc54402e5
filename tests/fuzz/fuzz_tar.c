/* The tar reader on arbitrary bytes (no gzip layer, so the fuzzer reaches
 * the headers directly). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "catalog/tar.h"

struct mem {
	const uint8_t *p;
	size_t n;
};

static int mem_read(void *src, void *buf, size_t n, struct wd_err *err)
{
	struct mem *m = src;
	if (n > m->n)
		return wd_err_set(err, WD_ETRUST, "truncated");
	memcpy(buf, m->p, n);
	m->p += n;
	m->n -= n;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mem m = {data, size};
	struct tar_reader r = {mem_read, &m, "fuzz"};
	struct tar_entry e;
	struct wd_err err;
	struct wd_buf b = {0};
	while (tar_next(&r, &e, &err) == 1) {
		if (e.size > size) /* the package reader bounds sizes by the manifest */
			break;
		if (tar_data(&r, &e, &b, &err))
			break;
	}
	wd_buf_free(&b);
	return 0;
}
