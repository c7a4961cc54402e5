/* NIF: parse then write gives the input back; reading the MAC section a
 * driver needs never fails on what parsed. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "os2/nif.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nif nif;
	struct wd_err err;
	int r = nif_parse(&nif, (const char *)data, size, &err);
	struct wd_buf out = {0};
	nif_write(&nif, &out);
	if (out.len != size || (size && memcmp(out.p, data, size)))
		abort();
	wd_buf_free(&out);
	if (!r) {
		struct nif_kv *kv;
		size_t n = nif_mac_section(&nif, &kv);
		if (!n || strcmp(kv[0].key, "DriverName") || strcmp(kv[0].value, nif.drivername))
			abort();
		nif_kv_free(kv, n);
	}
	nif_free(&nif);
	return 0;
}
