/* The "revoked" file of a key folder. Every line that is not blank or a
 * comment revokes the fingerprint it holds (spaces and tabs around it and a CR ending
 * ignored): a line the reader skips would leave a revoked key trusted. A
 * file it cannot read whole (a NUL byte) is refused, naming the file. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trust/keys.h"
#include "fuzz_tmp.h"

static void check_line(const struct keyring *kr, const char *p, size_t n)
{
	struct wd_sv v = wd_sv_trim(wd_sv_make(p, n));
	if (v.n && v.p[v.n - 1] == '\r')
		v = wd_sv_trim(wd_sv_make(v.p, v.n - 1));
	if (!v.n || v.p[0] == '#')
		return;
	char *fpr = wd_sv_dup(v);
	if (!keyring_is_revoked(kr, fpr))
		abort();
	free(fpr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	free(fz_put("revoked", data, size));
	struct keyring kr = {0};
	struct wd_err err;
	int r = keyring_add_dir(&kr, fz_tmp(), &err);
	if (size && memchr(data, '\0', size)) {
		if (r != -WD_ETRUST || !strstr(err.msg, "revoked line "))
			abort();
		keyring_free(&kr);
		return 0;
	}
	if (r)
		abort();
	const char *p = (const char *)data, *end = p + size;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		check_line(&kr, p, (size_t)(e - p));
		p = nl ? nl + 1 : end;
	}
	for (size_t i = 0; i < kr.nrevoked; i++)
		if (strchr(kr.revoked[i], '\n'))
			abort();
	keyring_free(&kr);
	return 0;
}
