/* The manifest parser on arbitrary bytes, as a recipe and as a package. */
#include <stddef.h>
#include <stdint.h>

#include "catalog/manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pkg_manifest m;
	struct wd_err err;
	for (int recipe = 0; recipe < 2; recipe++)
		if (manifest_parse((const char *)data, size, recipe, "fuzz", &m, &err) == 0) {
			struct wd_buf b = {0};
			manifest_write(&m, &b);
			/* what we write we must read back */
			struct pkg_manifest again;
			if (manifest_parse(b.p, b.len, recipe, "again", &again, &err) != 0)
				__builtin_trap();
			manifest_free(&again);
			wd_buf_free(&b);
			manifest_free(&m);
		}
	return 0;
}
