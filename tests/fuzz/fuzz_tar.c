/* The tar reader on arbitrary bytes (no gzip layer, so the fuzzer reaches
 * the headers directly). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "catalog/tar.h"

/* The streaming read's sink: counts what it is given. */
static int count_sink(void *ctx, const void *p, size_t n, struct wd_err *err)
{
	(void)p, (void)err;
	*(uint64_t *)ctx += n;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wd_sv m = {(const char *)data, size};
	struct tar_reader r = {tar_mem_read, &m, "fuzz"};
	struct tar_entry e;
	struct wd_err err;
	struct wd_buf b = {0};
	/* members alternate between the two reads a package uses: into memory,
	 * and streamed in chunks (which must hand over exactly the size) */
	for (int i = 0; tar_next(&r, &e, &err) == 1; i++) {
		if (e.size > size) /* the package reader bounds sizes by the manifest */
			break;
		uint64_t got = 0;
		if (i % 2 ? tar_data_chunks(&r, &e, count_sink, &got, &err)
			  : tar_data(&r, &e, &b, &err))
			break;
		if (i % 2 && got != e.size)
			__builtin_trap();
	}
	wd_buf_free(&b);
	return 0;
}
