/* The index parser on arbitrary bytes; what it accepts must round-trip. */
#include <stddef.h>
#include <stdint.h>

#include "catalog/index.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct repo_index idx;
	struct wd_err err;
	if (index_parse((const char *)data, size, "fuzz", &idx, &err) == 0) {
		struct wd_buf b = {0};
		index_write(&idx, &b);
		struct repo_index again;
		if (index_parse(b.p, b.len, "again", &again, &err) != 0 || again.npkgs != idx.npkgs)
			__builtin_trap();
		index_free(&again);
		wd_buf_free(&b);
		index_free(&idx);
	}
	return 0;
}
